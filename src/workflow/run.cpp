#include "workflow/run.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "backends/ref/ref_opsets.h"
#include "model/npy.h"
#include "model/onnx_model.h"
#include "platform/spec.h"
#include "tensor/hash.h"
#include "worker/worker_pool.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

Status save_outputs(const std::string& dir, const std::string& name, const RunResult& r) {
  for (const auto& out : r.outputs) {
    const auto path = fs::path(dir) / file_name_part(name) / (file_name_part(out.value) + ".npy");
    IG_RETURN_IF_ERROR(write_npy(out.tensor, path.string()));
  }
  return Status::Ok();
}

}  // namespace

std::string file_name_part(const std::string& s) {
  std::string out;
  for (char c : s)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
            c == '=')
               ? c
               : '_';
  return out;
}

Expected<std::vector<std::string>> platform_specs_or_ref(
    const std::vector<std::string>& platforms) {
  std::vector<std::string> specs;
  for (const auto& p : platforms.empty() ? std::vector<std::string>{"ref"} : platforms) {
    IG_ASSIGN_OR_RETURN(PlatformSpec spec, parse_platform_spec(p));
    specs.push_back(spec.to_string());
  }
  return specs;
}

Status start_platforms(WorkerPool& pool, const std::vector<std::string>& specs) {
  for (const auto& spec : specs) {
    Status st = pool.start(spec);
    if (st.code() == StatusCode::kInvalidArgument || st.code() == StatusCode::kNotFound) return st;
  }
  return Status::Ok();
}

bool RunModelOutcome::all_ok() const {
  return std::all_of(platforms.begin(), platforms.end(),
                     [](const PlatformRun& p) { return p.result.verdict == Verdict::kOk; });
}

Expected<RunModelOutcome> run_model_on_platforms(const RunModelRequest& request,
                                                 const RunModelHooks& hooks) {
  IG_ASSIGN_OR_RETURN(const std::vector<std::string> specs,
                      platform_specs_or_ref(request.platforms));
  LoadOptions load;
  load.max_memory_bytes = request.max_memory_bytes;
  IG_ASSIGN_OR_RETURN(const Model model, load_model(request.model, load));
  IG_RETURN_IF_ERROR(check_ref_opsets(model));
  IG_ASSIGN_OR_RETURN(const GatheredInputs gathered, gather_inputs(model, request.inputs));
  IG_RETURN_IF_ERROR(sizing_fits_nothing(request.inputs, {&gathered}, request.model));
  RunModelOutcome out;
  out.inputs = gathered.inputs;
  std::map<std::string, Tensor> feeds;
  for (const auto& in : out.inputs) feeds[in.name] = in.tensor;
  if (hooks.inputs_ready) hooks.inputs_ready(out.inputs);
  WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = !request.in_process});
  IG_RETURN_IF_ERROR(start_platforms(pool, specs));
  std::vector<std::string> keys;  // the groups' combined hashes, in first-seen order
  for (const auto& spec : specs) {
    PlatformRun run;
    run.spec = spec;
    RunRequest r;
    r.platform = run.spec;
    r.model_path = request.model;
    r.inputs = feeds;
    r.capture.all_layers = false;
    r.timeout_seconds = request.timeout_seconds;
    r.max_memory_bytes = request.max_memory_bytes;
    r.input_flags = request.inputs.flags();
    run.result = pool.run(r);
    if (run.result.verdict == Verdict::kOk) {
      if (!request.save_dir.empty())
        IG_RETURN_IF_ERROR(save_outputs(request.save_dir, run.spec, run.result));
      for (const auto& o : run.result.outputs) run.combined += hash_hex(o.hash);
      auto it = std::find(keys.begin(), keys.end(), run.combined);
      if (it == keys.end()) {
        keys.push_back(run.combined);
        out.groups.emplace_back();
        it = keys.end() - 1;
      }
      run.group = static_cast<int>(it - keys.begin());
      out.groups[static_cast<size_t>(run.group)].push_back(run.spec);
    }
    if (hooks.platform_done) hooks.platform_done(run);
    out.platforms.push_back(std::move(run));
  }
  return out;
}

}  // namespace ig

#include "workflow/reduce.h"

#include <cctype>
#include <cstdio>
#include <filesystem>

#include "backends/ref/ref_opsets.h"
#include "model/npy.h"
#include "model/onnx_model.h"
#include "workflow/work_folder.h"

namespace ig {

namespace {

namespace fs = std::filesystem;

std::string shell_quoted(const std::string& s) { return "'" + s + "'"; }

// A platform no worker can build (unknown backend or option) is a usage error.
Status start_platforms(WorkerPool& pool, const ReduceOptions& o) {
  for (const auto& spec : {o.a, o.b, o.capture_from}) {
    Status st = pool.start(spec);
    if (st.code() == StatusCode::kInvalidArgument || st.code() == StatusCode::kNotFound) {
      return st;
    }
  }
  return Status::Ok();
}

// reduce_model with its candidates in a private folder; DIR is written only once there is a result.
Expected<ReduceResult> reduce_in_private_folder(const ReduceJob& plan, const Model& model,
                                                const std::map<std::string, Tensor>& feeds,
                                                WorkerPool& pool) {
  ReduceOptions o = plan.options;
  const WorkFolder work("reduce");
  o.work_dir = work.path();
  o.progress = plan.progress;
  return reduce_model(plan.model, model, feeds, pool, o);
}

void write_repro_script(const fs::path& path, const ReduceOptions& o, const std::string& model,
                        const ReduceResult& r, const std::string& repro) {
  std::FILE* f = std::fopen(path.string().c_str(), "w");
  if (!f) return;
  std::fprintf(f, "#!/bin/sh\n# %s vs %s on %s, reduced from %lld to %zu node(s)\n%s\n",
               o.a.c_str(), o.b.c_str(), model.c_str(), static_cast<long long>(r.original_nodes),
               r.nodes.size(), repro.c_str());
  std::fclose(f);
}

// DIR/reduced.onnx, DIR/inputs/*.npy and DIR/repro.sh.
Expected<ReductionFiles> write_reduction(const ReduceJob& plan, const ReduceResult& r) {
  const ReduceOptions& o = plan.options;
  const fs::path dir(plan.out_dir);
  std::error_code ec;
  fs::create_directories(dir / "inputs", ec);
  if (ec) return io_error("{}: {}", plan.out_dir, ec.message());
  ReductionFiles w;
  w.reduced = (dir / "reduced.onnx").string();
  IG_RETURN_IF_ERROR(save_model_proto(r.model, w.reduced));
  // The repro names this binary, so it runs as written wherever infergap is not on PATH.
  std::error_code exe_ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", exe_ec);
  w.repro = (exe_ec ? std::string("infergap") : exe.string()) + " run " + shell_quoted(w.reduced);
  for (const auto& [name, t] : r.inputs) {
    const std::string path = (dir / "inputs" / reduced_input_file_name(name)).string();
    IG_RETURN_IF_ERROR(write_npy(t, path));
    w.inputs[name] = path;
    w.repro += " --input " + shell_quoted(name + "=" + path);
  }
  w.repro += " -p " + shell_quoted(o.a) + " -p " + shell_quoted(o.b);
  write_repro_script(dir / "repro.sh", o, plan.model, r, w.repro);
  return w;
}

}  // namespace

std::string reduced_input_file_name(const std::string& name) {
  std::string out;
  for (char c : name) {
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  }
  return out + ".npy";
}

Expected<ReduceOutcome> reduce_and_write(const ReduceJob& plan) {
  LoadOptions load;
  load.max_memory_bytes = plan.options.max_memory_bytes;
  IG_ASSIGN_OR_RETURN(const Model model, load_model(plan.model, load));
  IG_RETURN_IF_ERROR(check_ref_opsets(model));
  IG_ASSIGN_OR_RETURN(const GatheredInputs gathered, gather_inputs(model, plan.inputs));
  std::map<std::string, Tensor> feeds;
  for (const auto& in : gathered.inputs) feeds[in.name] = in.tensor;
  WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = true});
  IG_RETURN_IF_ERROR(start_platforms(pool, plan.options));
  ReduceOutcome out;
  IG_ASSIGN_OR_RETURN(out.result, reduce_in_private_folder(plan, model, feeds, pool));
  if (out.result.agree) return out;
  IG_ASSIGN_OR_RETURN(out.files, write_reduction(plan, out.result));
  return out;
}

}  // namespace ig

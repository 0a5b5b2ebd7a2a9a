// infergap boundary MODEL -p A -p B [--start SPEC]... [--starts N] [--seed S] [--shape
// NAME=DIMS]...
//   [--dim SYMBOL=SIZE]... [-o DIR] [--json]
// Searches for an input whose top-1 label differs between platforms A and B (iNNformant's boundary
// samples): natural inputs first, then bisection between inputs A labels differently.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/reduce/boundary.h"
#include "backends/ref/ref_opsets.h"
#include "cli/commands.h"
#include "cli/input_options.h"
#include "inputs/inputs.h"
#include "model/npy.h"
#include "model/onnx_model.h"
#include "platform/spec.h"
#include "tensor/convert.h"
#include "tensor/hash.h"
#include "worker/worker_pool.h"

namespace ig::cli {

namespace fs = std::filesystem;

namespace {

struct BoundaryArgs {
  std::string model, out_dir;
  std::vector<std::string> platforms, starts, shapes, dims;
  int random_starts = 8;
  uint64_t seed = 0;
  BoundaryOptions options;
  double timeout = 300;
  bool json = false;
};

// The model's logits on `platform`: the first graph output, flattened to doubles.
LogitsFn logits_on(WorkerPool& pool, const BoundaryArgs& args, const std::string& platform,
                   const std::string& input_name) {
  return [&pool, &args, platform, input_name](const Tensor& x) -> Expected<std::vector<double>> {
    RunRequest request;
    request.platform = platform;
    request.model_path = args.model;
    request.inputs[input_name] = x;
    request.capture.all_layers = false;
    request.timeout_seconds = args.timeout;
    const RunResult r = pool.run(request);
    if (r.verdict != Verdict::kOk || r.outputs.empty())
      return internal_error("{}: {}: {} (repro: {})", platform, verdict_name(r.verdict), r.reason,
                            r.repro);
    const Tensor logits = convert_float_tensor(r.outputs[0].tensor, DType::kFloat64);
    const double* p = logits.data<double>();
    return std::vector<double>(p, p + logits.numel());
  };
}

nlohmann::json labelled_json(const Labelled& l, const std::vector<double>& logits) {
  return {{"label", l.label}, {"gap", l.gap}, {"logits", logits}};
}

Status run_boundary(const BoundaryArgs& args, nlohmann::json& j) {
  if (args.platforms.size() != 2)
    return invalid_argument("boundary compares exactly two platforms (-p A -p B); got {}",
                            args.platforms.size());
  std::vector<std::string> specs;
  for (const auto& p : args.platforms) {
    IG_ASSIGN_OR_RETURN(PlatformSpec spec, parse_platform_spec(p));
    specs.push_back(spec.to_string());
  }
  IG_ASSIGN_OR_RETURN(Model model, load_model(args.model));
  IG_RETURN_IF_ERROR(check_ref_opsets(model));
  const auto runtime = model.graph.runtime_inputs();
  if (runtime.size() != 1)
    return invalid_argument("{}: boundary search needs a model with one runtime input; it has {}",
                            args.model, runtime.size());
  const std::string name = runtime[0]->name;
  std::vector<Tensor> starts;
  std::vector<std::string> recipes;
  std::vector<std::pair<std::string, DefaultedDim>> defaulted;
  auto add_start = [&](const std::string& spec, uint64_t seed) -> Status {
    const InputRequest request{{name + "=" + spec}, args.shapes, args.dims, seed};
    IG_ASSIGN_OR_RETURN(GatheredInputs g, gather_inputs(model, request));
    IG_RETURN_IF_ERROR(sizing_fits_nothing(request, {&g}, args.model));
    for (const auto& d : g.inputs[0].defaulted) {
      auto same = [&](const auto& x) { return x.second.index == d.index; };
      if (std::none_of(defaulted.begin(), defaulted.end(), same))
        defaulted.emplace_back(args.model, d);
    }
    starts.push_back(g.inputs[0].tensor);
    recipes.push_back(g.inputs[0].source);
    return Status::Ok();
  };
  for (const auto& s : args.starts) {
    Status st = add_start(s, args.seed);
    if (!st.ok()) return st;
  }
  for (int k = 0; k < args.random_starts; ++k) {
    Status st = add_start("random:uniform,seed=" + std::to_string(args.seed + k), args.seed + k);
    if (!st.ok()) return st;
  }
  const nlohmann::json defaulted_dims = announce_defaulted("boundary", defaulted);
  WorkerPool pool(WorkerPoolOptions{});
  for (const auto& s : specs) {
    Status st = pool.start(s);
    if (!st.ok()) return st.with_context(s);
  }
  IG_ASSIGN_OR_RETURN(BoundaryResult r,
                      find_boundary(starts, logits_on(pool, args, specs[0], name),
                                    logits_on(pool, args, specs[1], name), args.options));
  j = {{"model", args.model},
       {"platforms", specs},
       {"found", r.found},
       {"natural_inputs", r.natural_inputs},
       {"natural_flips", r.natural_flips},
       {"pairs_tried", r.pairs_tried},
       {"evaluations", r.evaluations},
       {"note", r.note},
       {"starts", recipes},
       {"defaulted_dims", defaulted_dims}};
  if (!r.found) return Status::Ok();
  j["t"] = r.t;
  j["start_pair"] = {recipes[static_cast<size_t>(r.start_a)],
                     recipes[static_cast<size_t>(r.start_b)]};
  j["input_hash"] = hash_hex(tensor_hash(r.input));
  j["on"] = {{specs[0], labelled_json(r.on_a, r.logits_a)},
             {specs[1], labelled_json(r.on_b, r.logits_b)}};
  if (!args.out_dir.empty()) {
    fs::create_directories(args.out_dir);
    const std::string path = (fs::path(args.out_dir) / "boundary_input.npy").string();
    Status st = write_npy(r.input, path);
    if (!st.ok()) return st;
    j["input_file"] = path;
  }
  return Status::Ok();
}

void print_text(const nlohmann::json& j) {
  const auto specs = j["platforms"].get<std::vector<std::string>>();
  std::printf("natural inputs: %d, label flips among them: %d\n", j["natural_inputs"].get<int>(),
              j["natural_flips"].get<int>());
  if (!j["found"].get<bool>()) {
    std::printf("no boundary input found (%s; %d evaluations)\n",
                j["note"].get<std::string>().c_str(), j["evaluations"].get<int>());
    return;
  }
  std::printf("boundary input found after %d evaluations (%s), t=%.17g between\n  %s\n  %s\n",
              j["evaluations"].get<int>(), j["note"].get<std::string>().c_str(),
              j["t"].get<double>(), j["start_pair"][0].get<std::string>().c_str(),
              j["start_pair"][1].get<std::string>().c_str());
  for (const auto& s : specs)
    std::printf("  %-40s top-1 %d (lead over top-2 %.3g)\n", s.c_str(),
                j["on"][s]["label"].get<int>(), j["on"][s]["gap"].get<double>());
  if (j.contains("input_file"))
    std::printf("input written to %s\n", j["input_file"].get<std::string>().c_str());
}

}  // namespace

void add_boundary_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<BoundaryArgs>();
  auto* cmd = app.add_subcommand(
      "boundary", "Search for an input whose top-1 label differs between two platforms");
  cmd->add_option("model", args->model, "ONNX classifier (one runtime input)")->required();
  cmd->add_option("-p,--platform", args->platforms, "The two platforms, A then B")->required();
  cmd->add_option("--start", args->starts,
                  "A natural start input (an input SPEC without NAME=, e.g. image:cat.png)");
  cmd->add_option("--starts", args->random_starts, "Seeded random:uniform start inputs")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the first random start")->capture_default_str();
  add_sizing_options(cmd, &args->shapes, &args->dims);
  cmd->add_option("--max-steps", args->options.max_steps, "Bisection steps per pair")
      ->capture_default_str();
  cmd->add_option("--max-pairs", args->options.max_pairs, "Start pairs to bisect")
      ->capture_default_str();
  cmd->add_option("--timeout", args->timeout, "Seconds a run may take")->capture_default_str();
  cmd->add_option("-o,--out", args->out_dir, "Folder for boundary_input.npy");
  cmd->add_flag("--json", args->json, "Print the result as JSON");
  cmd->callback([args, &exit_code] {
    nlohmann::json j;
    Status st = run_boundary(*args, j);
    if (!st.ok()) {
      std::fprintf(stderr, "infergap boundary: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    if (args->json)
      std::printf("%s\n", j.dump(2).c_str());
    else
      print_text(j);
    if (!j["found"].get<bool>()) exit_code = kExitFailures;
  });
}

}  // namespace ig::cli

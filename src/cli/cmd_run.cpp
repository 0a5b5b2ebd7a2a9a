// infergap run MODEL [--input NAME=SPEC]... [--shape NAME=DIMS]... [--dim SYMBOL=SIZE]...
//   [-p PLATFORM]... [--save-outputs DIR] [--json]
// Every platform runs in its own worker process (workflow/run.h): a crash is a verdict, not the
// end.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/input_options.h"
#include "cli/limit_options.h"
#include "inputs/inputs.h"
#include "tensor/hash.h"
#include "workflow/run.h"

namespace ig::cli {

namespace {

struct RunArgs {
  std::string model;
  std::vector<std::string> inputs, shapes, dims;
  std::vector<std::string> platforms;
  std::string save_dir;
  bool json = false;
  bool in_process = false;
  LimitArgs limits;
  uint64_t seed = 0;
};

void add_run_options(CLI::App* cmd, RunArgs& a) {
  cmd->add_option("model", a.model, "ONNX model file")->required();
  cmd->add_option("--input", a.inputs,
                  "NAME=SPEC: a .npy/.pb file, image:PATH[,preset=imagenet|cifar], "
                  "random:uniform|normal|model[,seed=S], value:V (one value in the input's "
                  "dtype), any with ,inject=nan@0.01; missing inputs get random:uniform with "
                  "--seed");
  add_sizing_options(cmd, &a.shapes, &a.dims);
  cmd->add_option("-p,--platform", a.platforms, "Platform spec, e.g. ref (repeatable)");
  cmd->add_option("--save-outputs", a.save_dir,
                  "Write every output as .npy, one folder per platform");
  cmd->add_option("--seed", a.seed, "Seed for generated inputs")->capture_default_str();
  add_limit_options(cmd, &a.limits);
  cmd->add_flag("--in-process", a.in_process,
                "Run in this process instead of a worker (ref only; no crash isolation)");
  cmd->add_flag("--json", a.json, "Print results as JSON");
}

nlohmann::json inputs_json(const std::vector<NamedInput>& inputs) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& in : inputs) {
    nlohmann::json dims = nlohmann::json::array();
    for (const auto& d : in.defaulted)
      dims.push_back({{"index", d.index}, {"symbol", d.symbol}, {"value", d.value}});
    j.push_back({{"name", in.name},
                 {"source", in.source},
                 {"dtype", dtype_name(in.tensor.dtype())},
                 {"shape", in.tensor.shape()},
                 {"hash", hash_hex(tensor_hash(in.tensor))},
                 {"defaulted_dims", dims}});
  }
  return j;
}

std::vector<std::pair<std::string, DefaultedDim>> defaulted_dims(
    const std::string& model, const std::vector<NamedInput>& inputs) {
  std::vector<std::pair<std::string, DefaultedDim>> defaulted;
  for (const auto& in : inputs)
    for (const auto& d : in.defaulted) defaulted.emplace_back(model, d);
  return defaulted;
}

std::string group_label(size_t g) {
  return g < 26 ? std::string(1, static_cast<char>('A' + g)) : "G" + std::to_string(g + 1);
}

nlohmann::json failed_platform_json(const std::string& name, const RunResult& r) {
  nlohmann::json pj{{"spec", name},
                    {"library", r.library},
                    {"version", r.library_version},
                    {"seconds", r.seconds},
                    {"verdict", std::string(verdict_name(r.verdict))},
                    {"reason", r.reason},
                    {"repro", r.repro},
                    {"rejections", nlohmann::json::array()}};
  for (const auto& x : r.rejections)
    pj["rejections"].push_back({{"node", x.node}, {"op_type", x.op_type}, {"reason", x.reason}});
  return pj;
}

void print_failed_platform(const std::string& name, const RunResult& r, bool json) {
  const std::string verdict(verdict_name(r.verdict));
  // The reason also goes to stderr: a failed run is an error whatever the output format.
  std::fprintf(stderr, "infergap run: %s: %s: %s\n", name.c_str(), verdict.c_str(),
               r.reason.c_str());
  if (!json)
    std::printf("%-40s %-11s %8.3f s  %s\n    repro: %s\n", name.c_str(), verdict.c_str(),
                r.seconds, r.reason.c_str(), r.repro.c_str());
}

nlohmann::json ok_platform_json(const std::string& name, const RunResult& r, size_t group) {
  nlohmann::json pj{{"spec", name},
                    {"library", r.library},
                    {"version", r.library_version},
                    {"seconds", r.seconds},
                    {"verdict", std::string(verdict_name(r.verdict))},
                    {"outputs", nlohmann::json::array()},
                    {"group", group}};
  for (const auto& out : r.outputs) {
    pj["outputs"].push_back({{"name", out.value},
                             {"dtype", dtype_name(out.dtype)},
                             {"shape", out.shape},
                             {"hash", hash_hex(out.hash)},
                             {"verdict", "ok"}});
    if (!out.note.empty()) pj["outputs"].back()["note"] = out.note;
  }
  return pj;
}

void print_ok_platform(const std::string& name, const RunResult& r, const std::string& combined,
                       size_t group) {
  const std::string hash = r.outputs.size() == 1
                               ? hash_hex(r.outputs[0].hash)
                               : hash_hex(tensor_hash(Tensor::from_strings({combined}, {1})));
  std::printf("%-40s %-11s %8.3f s  xxh3:%s  group %s\n", name.c_str(), "ok", r.seconds,
              hash.c_str(), group_label(group).c_str());
  for (const auto& out : r.outputs)
    std::printf("    %s %s%s xxh3:%s%s%s\n", out.value.c_str(), dtype_name(out.dtype),
                shape_to_string(out.shape).c_str(), hash_hex(out.hash).c_str(),
                out.note.empty() ? "" : "  ", out.note.c_str());
}

void print_groups(const std::vector<std::vector<std::string>>& groups) {
  std::printf("%zu group(s) of platforms with bitwise-identical outputs:\n", groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    std::string line;
    for (const auto& m : groups[g]) line += (line.empty() ? "" : ", ") + m;
    std::printf("  %s {%s}\n", group_label(g).c_str(), line.c_str());
  }
}

// Platforms that fail set `exit_code` to kExitFailures; an error returned is bad input.
Status run_model(const RunArgs& a, int& exit_code) {
  RunModelRequest request;
  request.model = a.model;
  request.inputs = InputRequest{a.inputs, a.shapes, a.dims, a.seed};
  request.platforms = a.platforms;
  request.save_dir = a.save_dir;
  request.in_process = a.in_process;
  request.timeout_seconds = a.limits.timeout;
  request.max_memory_bytes = a.limits.max_memory_bytes();
  RunModelHooks hooks;
  hooks.inputs_ready = [&](const std::vector<NamedInput>& inputs) {
    for (const auto& in : inputs)
      if (!a.json)
        std::printf("input %s: %s from %s\n", in.name.c_str(), in.tensor.describe().c_str(),
                    in.source.c_str());
    announce_defaulted("run", defaulted_dims(a.model, inputs));
  };
  hooks.platform_done = [&](const PlatformRun& p) {
    if (p.result.verdict != Verdict::kOk) {
      print_failed_platform(p.spec, p.result, a.json);
    } else if (!a.json) {
      print_ok_platform(p.spec, p.result, p.combined, static_cast<size_t>(p.group));
    }
  };
  IG_ASSIGN_OR_RETURN(const RunModelOutcome outcome, run_model_on_platforms(request, hooks));
  if (!outcome.all_ok()) exit_code = kExitFailures;
  if (!a.json) {
    if (outcome.platforms.size() > 1) print_groups(outcome.groups);
    return Status::Ok();
  }
  nlohmann::json j{{"model", a.model},
                   {"inputs", inputs_json(outcome.inputs)},
                   {"input_set_hash", input_set_hash(outcome.inputs)},
                   {"platforms", nlohmann::json::array()}};
  for (const auto& p : outcome.platforms)
    j["platforms"].push_back(p.result.verdict == Verdict::kOk
                                 ? ok_platform_json(p.spec, p.result, static_cast<size_t>(p.group))
                                 : failed_platform_json(p.spec, p.result));
  j["groups"] = outcome.groups;
  std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  return Status::Ok();
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd =
      app.add_subcommand("run", "Run a model on one or more platforms and hash every output");
  add_run_options(cmd, *args);
  cmd->callback([args, &exit_code] {
    if (Status st = run_model(*args, exit_code); !st.ok()) {
      std::fprintf(stderr, "infergap run: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli

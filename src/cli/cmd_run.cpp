// infergap run MODEL [--input NAME=SPEC]... [--shape NAME=DIMS]... [--dim SYMBOL=SIZE]...
//   [-p PLATFORM]... [--save-outputs DIR] [--json]
// Every platform runs in its own worker process (WorkerPool): a crash is a verdict, not the end.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "backends/ref/ref_opsets.h"
#include "cli/commands.h"
#include "cli/input_options.h"
#include "cli/limit_options.h"
#include "inputs/inputs.h"
#include "model/npy.h"
#include "model/onnx_model.h"
#include "platform/spec.h"
#include "tensor/hash.h"
#include "worker/worker_pool.h"

namespace ig::cli {

namespace fs = std::filesystem;

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

// Combined output hashes -> platforms, in first-seen order; each group gets a letter.
using Groups = std::vector<std::pair<std::string, std::vector<std::string>>>;

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
            c == '=')
               ? c
               : '_';
  return out;
}

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

// The platforms given, `ref` when none is.
Expected<std::vector<PlatformSpec>> parse_specs(const std::vector<std::string>& platforms) {
  std::vector<PlatformSpec> specs;
  for (const auto& p : platforms.empty() ? std::vector<std::string>{"ref"} : platforms) {
    IG_ASSIGN_OR_RETURN(PlatformSpec spec, parse_platform_spec(p));
    specs.push_back(spec);
  }
  return specs;
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

// A platform the worker cannot build (unknown backend or option) is a usage error.
Status start_platforms(WorkerPool& pool, const std::vector<PlatformSpec>& specs) {
  for (const auto& spec : specs) {
    Status st = pool.start(spec.to_string());
    if (st.code() == StatusCode::kInvalidArgument || st.code() == StatusCode::kNotFound) return st;
  }
  return Status::Ok();
}

RunRequest request_for(const RunArgs& a, const std::string& platform,
                       const std::map<std::string, Tensor>& feeds, const InputRequest& inputs) {
  RunRequest request;
  request.platform = platform;
  request.model_path = a.model;
  request.inputs = feeds;
  request.capture.all_layers = false;
  request.timeout_seconds = a.limits.timeout;
  request.max_memory_bytes = a.limits.max_memory_bytes();
  request.input_flags = inputs.flags();
  return request;
}

size_t group_of(Groups& groups, const std::string& key, const std::string& name) {
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].first != key) continue;
    groups[g].second.push_back(name);
    return g;
  }
  groups.push_back({key, {name}});
  return groups.size() - 1;
}

std::string group_label(size_t g) {
  return g < 26 ? std::string(1, static_cast<char>('A' + g)) : "G" + std::to_string(g + 1);
}

nlohmann::json failed_platform_json(const std::string& name, const RunResult& r) {
  nlohmann::json pj{{"spec", name},
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

Status save_outputs(const std::string& dir, const std::string& name, const RunResult& r) {
  for (const auto& out : r.outputs) {
    const auto path = fs::path(dir) / sanitize(name) / (sanitize(out.value) + ".npy");
    IG_RETURN_IF_ERROR(write_npy(out.tensor, path.string()));
  }
  return Status::Ok();
}

// The output hashes one after another: platforms whose outputs agree bitwise share it.
std::string combined_hashes(const RunResult& r) {
  std::string combined;
  for (const auto& out : r.outputs) combined += hash_hex(out.hash);
  return combined;
}

nlohmann::json ok_platform_json(const std::string& name, const RunResult& r, size_t group) {
  nlohmann::json pj{{"spec", name},
                    {"seconds", r.seconds},
                    {"verdict", std::string(verdict_name(r.verdict))},
                    {"outputs", nlohmann::json::array()},
                    {"group", group}};
  for (const auto& out : r.outputs)
    pj["outputs"].push_back({{"name", out.value},
                             {"dtype", dtype_name(out.dtype)},
                             {"shape", out.shape},
                             {"hash", hash_hex(out.hash)},
                             {"verdict", "ok"}});
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
    std::printf("    %s %s%s xxh3:%s\n", out.value.c_str(), dtype_name(out.dtype),
                shape_to_string(out.shape).c_str(), hash_hex(out.hash).c_str());
}

void print_groups(const Groups& groups) {
  std::printf("%zu group(s) of platforms with bitwise-identical outputs:\n", groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    std::string line;
    for (const auto& m : groups[g].second) line += (line.empty() ? "" : ", ") + m;
    std::printf("  %s {%s}\n", group_label(g).c_str(), line.c_str());
  }
}

// Platforms that fail set `exit_code` to kExitFailures; an error returned is bad input.
Status run_model(const RunArgs& a, int& exit_code) {
  IG_ASSIGN_OR_RETURN(const std::vector<PlatformSpec> specs, parse_specs(a.platforms));
  LoadOptions load;
  load.max_memory_bytes = a.limits.max_memory_bytes();
  IG_ASSIGN_OR_RETURN(const Model model, load_model(a.model, load));
  IG_RETURN_IF_ERROR(check_ref_opsets(model));
  const InputRequest input_request{a.inputs, a.shapes, a.dims, a.seed};
  IG_ASSIGN_OR_RETURN(const GatheredInputs gathered, gather_inputs(model, input_request));
  IG_RETURN_IF_ERROR(sizing_fits_nothing(input_request, {&gathered}, a.model));
  const std::vector<NamedInput>& inputs = gathered.inputs;
  std::map<std::string, Tensor> feeds;
  for (const auto& in : inputs) {
    feeds[in.name] = in.tensor;
    if (!a.json)
      std::printf("input %s: %s from %s\n", in.name.c_str(), in.tensor.describe().c_str(),
                  in.source.c_str());
  }
  announce_defaulted("run", defaulted_dims(a.model, inputs));
  nlohmann::json j{{"model", a.model},
                   {"inputs", inputs_json(inputs)},
                   {"input_set_hash", input_set_hash(inputs)},
                   {"platforms", nlohmann::json::array()}};
  WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = !a.in_process});
  IG_RETURN_IF_ERROR(start_platforms(pool, specs));
  Groups groups;
  for (const auto& spec : specs) {
    const std::string name = spec.to_string();
    const RunResult r = pool.run(request_for(a, name, feeds, input_request));
    if (r.verdict != Verdict::kOk) {
      exit_code = kExitFailures;
      print_failed_platform(name, r, a.json);
      j["platforms"].push_back(failed_platform_json(name, r));
      continue;
    }
    if (!a.save_dir.empty()) IG_RETURN_IF_ERROR(save_outputs(a.save_dir, name, r));
    const std::string combined = combined_hashes(r);
    const size_t g = group_of(groups, combined, name);
    j["platforms"].push_back(ok_platform_json(name, r, g));
    if (!a.json) print_ok_platform(name, r, combined, g);
  }
  j["groups"] = nlohmann::json::array();
  for (const auto& [_, members] : groups) j["groups"].push_back(members);
  if (a.json)
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  else if (specs.size() > 1)
    print_groups(groups);
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

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

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
            c == '=')
               ? c
               : '_';
  return out;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string model;
    std::vector<std::string> inputs, shapes, dims;
    std::vector<std::string> platforms;
    std::string save_dir;
    bool json = false;
    bool in_process = false;
    LimitArgs limits;
    uint64_t seed = 0;
  };
  auto args = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("run", "Run a model on one or more platforms and hash every output");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  cmd->add_option("--input", args->inputs,
                  "NAME=SPEC: a .npy/.pb file, image:PATH[,preset=imagenet|cifar], "
                  "random:uniform|normal|model[,seed=S], value:V (one value in the input's "
                  "dtype), any with ,inject=nan@0.01; missing inputs get random:uniform with "
                  "--seed");
  add_sizing_options(cmd, &args->shapes, &args->dims);
  cmd->add_option("-p,--platform", args->platforms, "Platform spec, e.g. ref (repeatable)");
  cmd->add_option("--save-outputs", args->save_dir,
                  "Write every output as .npy, one folder per platform");
  cmd->add_option("--seed", args->seed, "Seed for generated inputs")->capture_default_str();
  add_limit_options(cmd, &args->limits);
  cmd->add_flag("--in-process", args->in_process,
                "Run in this process instead of a worker (ref only; no crash isolation)");
  cmd->add_flag("--json", args->json, "Print results as JSON");
  cmd->callback([args, &exit_code] {
    auto fail = [&](const Status& st) {
      std::fprintf(stderr, "infergap run: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    };
    if (args->platforms.empty()) args->platforms.push_back("ref");
    std::vector<PlatformSpec> specs;
    for (const auto& p : args->platforms) {
      auto spec = parse_platform_spec(p);
      if (!spec.ok()) return fail(spec.status());
      specs.push_back(*spec);
    }
    LoadOptions load;
    load.max_memory_bytes = args->limits.max_memory_bytes();
    auto model = load_model(args->model, load);
    if (!model.ok()) return fail(model.status());
    if (Status st = check_ref_opsets(*model); !st.ok()) return fail(st);
    const InputRequest input_request{args->inputs, args->shapes, args->dims, args->seed};
    auto gathered = gather_inputs(*model, input_request);
    if (!gathered.ok()) return fail(gathered.status());
    if (Status st = sizing_fits_nothing(input_request, {&*gathered}, args->model); !st.ok())
      return fail(st);
    const std::vector<NamedInput>& inputs = gathered->inputs;
    std::map<std::string, Tensor> feeds;
    nlohmann::json j;
    j["model"] = args->model;
    j["inputs"] = nlohmann::json::array();
    std::vector<std::pair<std::string, DefaultedDim>> defaulted;
    for (const auto& in : inputs) {
      feeds[in.name] = in.tensor;
      nlohmann::json dims = nlohmann::json::array();
      for (const auto& d : in.defaulted) {
        dims.push_back({{"index", d.index}, {"symbol", d.symbol}, {"value", d.value}});
        defaulted.emplace_back(args->model, d);
      }
      j["inputs"].push_back({{"name", in.name},
                             {"source", in.source},
                             {"dtype", dtype_name(in.tensor.dtype())},
                             {"shape", in.tensor.shape()},
                             {"hash", hash_hex(tensor_hash(in.tensor))},
                             {"defaulted_dims", dims}});
      if (!args->json)
        std::printf("input %s: %s from %s\n", in.name.c_str(), in.tensor.describe().c_str(),
                    in.source.c_str());
    }
    announce_defaulted("run", defaulted);
    j["input_set_hash"] = input_set_hash(inputs);
    j["platforms"] = nlohmann::json::array();
    // Combined output hashes -> platforms, in first-seen order; each group gets a letter.
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;
    auto group_of = [&](const std::string& key, const std::string& name) {
      for (size_t g = 0; g < groups.size(); ++g) {
        if (groups[g].first != key) continue;
        groups[g].second.push_back(name);
        return g;
      }
      groups.push_back({key, {name}});
      return groups.size() - 1;
    };
    auto group_label = [](size_t g) {
      return g < 26 ? std::string(1, static_cast<char>('A' + g)) : "G" + std::to_string(g + 1);
    };
    WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = !args->in_process});
    for (const auto& spec : specs) {
      // A platform the worker cannot build (unknown backend or option) is a usage error.
      Status st = pool.start(spec.to_string());
      if (st.code() == StatusCode::kInvalidArgument || st.code() == StatusCode::kNotFound)
        return fail(st);
    }
    for (const auto& spec : specs) {
      const std::string name = spec.to_string();
      RunRequest request;
      request.platform = name;
      request.model_path = args->model;
      request.inputs = feeds;
      request.capture.all_layers = false;
      request.timeout_seconds = args->limits.timeout;
      request.max_memory_bytes = load.max_memory_bytes;
      request.input_flags = input_request.flags();
      const RunResult r = pool.run(request);
      const std::string verdict(verdict_name(r.verdict));
      nlohmann::json pj{{"spec", name}, {"seconds", r.seconds}, {"verdict", verdict}};
      if (r.verdict != Verdict::kOk) {
        pj["reason"] = r.reason;
        pj["repro"] = r.repro;
        pj["rejections"] = nlohmann::json::array();
        for (const auto& x : r.rejections)
          pj["rejections"].push_back(
              {{"node", x.node}, {"op_type", x.op_type}, {"reason", x.reason}});
        exit_code = kExitFailures;
        // The reason also goes to stderr: a failed run is an error whatever the output format.
        std::fprintf(stderr, "infergap run: %s: %s: %s\n", name.c_str(), verdict.c_str(),
                     r.reason.c_str());
        if (!args->json)
          std::printf("%-40s %-11s %8.3f s  %s\n    repro: %s\n", name.c_str(), verdict.c_str(),
                      r.seconds, r.reason.c_str(), r.repro.c_str());
        j["platforms"].push_back(pj);
        continue;
      }
      pj["outputs"] = nlohmann::json::array();
      std::string combined;
      for (const auto& out : r.outputs) {
        const std::string h = hash_hex(out.hash);
        combined += h;
        pj["outputs"].push_back({{"name", out.value},
                                 {"dtype", dtype_name(out.dtype)},
                                 {"shape", out.shape},
                                 {"hash", h},
                                 {"verdict", "ok"}});
        if (!args->save_dir.empty()) {
          const auto path =
              fs::path(args->save_dir) / sanitize(name) / (sanitize(out.value) + ".npy");
          Status saved = write_npy(out.tensor, path.string());
          if (!saved.ok()) return fail(saved);
        }
      }
      const size_t g = group_of(combined, name);
      pj["group"] = g;
      if (!args->json) {
        const std::string hash = r.outputs.size() == 1
                                     ? hash_hex(r.outputs[0].hash)
                                     : hash_hex(tensor_hash(Tensor::from_strings({combined}, {1})));
        std::printf("%-40s %-11s %8.3f s  xxh3:%s  group %s\n", name.c_str(), "ok", r.seconds,
                    hash.c_str(), group_label(g).c_str());
        for (const auto& out : r.outputs)
          std::printf("    %s %s%s xxh3:%s\n", out.value.c_str(), dtype_name(out.dtype),
                      shape_to_string(out.shape).c_str(), hash_hex(out.hash).c_str());
      }
      j["platforms"].push_back(pj);
    }
    j["groups"] = nlohmann::json::array();
    for (const auto& [_, members] : groups) j["groups"].push_back(members);
    if (args->json) {
      std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else if (specs.size() > 1) {
      std::printf("%zu group(s) of platforms with bitwise-identical outputs:\n", groups.size());
      for (size_t g = 0; g < groups.size(); ++g) {
        std::string line;
        for (const auto& m : groups[g].second) line += (line.empty() ? "" : ", ") + m;
        std::printf("  %s {%s}\n", group_label(g).c_str(), line.c_str());
      }
    }
  });
}

}  // namespace ig::cli

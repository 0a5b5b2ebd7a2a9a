// infergap reduce MODEL -p A -p B [--input ...] [--criterion bitwise|tolerance|label]
//   [--rtol R --atol A] [--capture-from P] -o DIR [--json]
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/input_options.h"
#include "cli/limit_options.h"
#include "platform/spec.h"
#include "workflow/reduce.h"

namespace ig::cli {

namespace {

namespace fs = std::filesystem;

struct ReduceArgs {
  std::string model, out;
  std::vector<std::string> inputs, shapes, dims, platforms;
  std::string criterion = "bitwise", capture_from = "ref";
  double rtol = 1e-5, atol = 1e-6;
  uint64_t seed = 0;
  int input_budget = 0;
  LimitArgs limits;
  bool json = false;
};

// Everything but the model's inputs and the folders: the platforms, criterion and limits.
Expected<ReduceOptions> reduce_options(const ReduceArgs& a) {
  if (a.platforms.size() != 2) {
    return invalid_argument("give exactly two platforms (-p A -p B), got {}", a.platforms.size());
  }
  ReduceOptions o;
  IG_ASSIGN_OR_RETURN(o.criterion, parse_reduce_criterion(a.criterion));
  o.rtol = a.rtol;
  o.atol = a.atol;
  o.input_budget = a.input_budget;
  std::vector<std::string> specs;
  for (const auto& p : a.platforms) {
    IG_ASSIGN_OR_RETURN(const PlatformSpec spec, parse_platform_spec(p));
    specs.push_back(spec.to_string());
  }
  o.a = specs[0];
  o.b = specs[1];
  IG_ASSIGN_OR_RETURN(const PlatformSpec capture, parse_platform_spec(a.capture_from));
  o.capture_from = capture.to_string();
  o.timeout_seconds = a.limits.timeout;
  o.max_memory_bytes = a.limits.max_memory_bytes();
  return o;
}

nlohmann::json reduction_json(const ReduceArgs& a, const ReduceOptions& o, const ReduceResult& r,
                              const ReductionFiles& w) {
  nlohmann::json j{{"model", a.model},
                   {"a", o.a},
                   {"b", o.b},
                   {"criterion", reduce_criterion_name(o.criterion)},
                   {"original_nodes", r.original_nodes},
                   {"nodes", r.nodes},
                   {"ops", r.ops},
                   {"reduced_model", w.reduced},
                   {"inputs", w.inputs},
                   {"outputs", r.outputs},
                   {"a_vs_b", r.a_vs_b},
                   {"tests", r.tests},
                   {"input_elements", nlohmann::json::object()},
                   {"repro", w.repro}};
  for (const auto& [name, counts] : r.input_elements) {
    j["input_elements"][name] = {{"nonzero", counts.first}, {"total", counts.second}};
  }
  return j;
}

void print_reduction(const ReduceArgs& a, const ReduceOptions& o, const ReduceResult& r,
                     const ReductionFiles& w) {
  std::printf("%s vs %s: %lld node(s) reduced to %zu in %lld test(s), still differing (%s): %s\n",
              o.a.c_str(), o.b.c_str(), static_cast<long long>(r.original_nodes), r.nodes.size(),
              static_cast<long long>(r.tests), reduce_criterion_name(o.criterion),
              r.a_vs_b.c_str());
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    std::printf("  %s (%s)\n", r.nodes[i].c_str(), r.ops[i].c_str());
  }
  for (const auto& [name, counts] : r.input_elements) {
    std::printf("  input %s: %lld of %lld elements left nonzero\n", name.c_str(),
                static_cast<long long>(counts.first), static_cast<long long>(counts.second));
  }
  std::printf("wrote %s, %zu input(s) in %s\nrepro: %s\n", w.reduced.c_str(), r.inputs.size(),
              (fs::path(a.out) / "inputs").string().c_str(), w.repro.c_str());
}

// True when reduced and written; false when the platforms agree (said on stderr, nothing written).
Expected<bool> reduce_and_write(const ReduceArgs& a) {
  IG_ASSIGN_OR_RETURN(const ReduceOptions o, reduce_options(a));
  ReduceJob plan{a.model, InputRequest{a.inputs, a.shapes, a.dims, a.seed}, o, a.out, nullptr};
  const bool tty = ::isatty(2);
  if (tty) {
    plan.progress = [](const std::string& s) {
      std::fprintf(stderr, "\rreduce: %s\033[K", s.c_str());
    };
  }
  auto outcome = ig::reduce_and_write(plan);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!outcome.ok()) return outcome.status();
  if (outcome->result.agree) {
    std::fprintf(stderr, "infergap reduce: %s and %s agree on %s under %s\n", o.a.c_str(),
                 o.b.c_str(), a.model.c_str(), reduce_criterion_name(o.criterion));
    return false;
  }
  if (a.json) {
    std::printf("%s\n", reduction_json(a, o, outcome->result, outcome->files).dump(2).c_str());
  } else {
    print_reduction(a, o, outcome->result, outcome->files);
  }
  return true;
}

// Exit code: 0 reduced, 1 the platforms agree (nothing written), 2 bad input.
int run_reduce(const ReduceArgs& a) {
  const Expected<bool> reduced = reduce_and_write(a);
  if (!reduced.ok()) {
    std::fprintf(stderr, "infergap reduce: %s\n", reduced.status().message().c_str());
    return kExitBadInput;
  }
  return *reduced ? kExitOk : kExitFailures;
}

}  // namespace

void add_reduce_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReduceArgs>();
  auto* cmd = app.add_subcommand(
      "reduce",
      "The smallest part of a model on which two platforms still differ (delta debugging)");
  cmd->add_option("model", args->model, "ONNX model file")->required();
  cmd->add_option("-p,--platform", args->platforms, "The two platforms, A then B")->required();
  cmd->add_option("--input", args->inputs, "NAME=SPEC, as for `infergap run`");
  add_sizing_options(cmd, &args->shapes, &args->dims);
  cmd->add_option("--seed", args->seed, "Seed for generated inputs")->capture_default_str();
  cmd->add_option("--criterion", args->criterion,
                  "bitwise (any bit), tolerance (|a-b| > atol + rtol*|b| somewhere) or label "
                  "(a row's top-1 changes)")
      ->capture_default_str();
  cmd->add_option("--rtol", args->rtol, "Relative tolerance (criterion tolerance)")
      ->capture_default_str();
  cmd->add_option("--atol", args->atol, "Absolute tolerance (criterion tolerance)")
      ->capture_default_str();
  cmd->add_option("--capture-from", args->capture_from,
                  "Platform whose run of the whole model gives the values entering each cut")
      ->capture_default_str();
  cmd->add_option("--reduce-inputs", args->input_budget,
                  "Then zero as many input elements of the reduced model as possible while A and "
                  "B still differ, in at most N more runs")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("-o,--out", args->out, "Folder for reduced.onnx, inputs/ and repro.sh")
      ->required();
  add_limit_options(cmd, &args->limits);
  cmd->add_flag("--json", args->json, "Print the result as JSON");
  cmd->callback([args, &exit_code] { exit_code = run_reduce(*args); });
}

}  // namespace ig::cli

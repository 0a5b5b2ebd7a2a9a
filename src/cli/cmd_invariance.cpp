// infergap invariance MODEL [--input NAME=SPEC]... --batch 1,8 [-p PLATFORM]... [--json]
// Whether each sample's output bits depend on the batch it is computed in (workflow/invariance.h).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/input_options.h"
#include "cli/limit_options.h"
#include "workflow/invariance.h"

namespace ig::cli {

namespace {

struct InvarianceArgs {
  std::string model;
  std::vector<std::string> inputs, shapes, dims;
  std::vector<std::string> platforms;
  std::vector<int64_t> batches = {1, 8};
  bool json = false;
  LimitArgs limits;
  uint64_t seed = 0;
};

void add_invariance_options(CLI::App* cmd, InvarianceArgs& a) {
  cmd->add_option("model", a.model, "ONNX model file with an open batch (first) dimension")
      ->required();
  cmd->add_option("--input", a.inputs,
                  "NAME=SPEC as for run; a file gives the samples along its first axis (at least "
                  "the largest batch); generated inputs get the largest batch");
  add_sizing_options(cmd, &a.shapes, &a.dims);
  cmd->add_option("--batch", a.batches,
                  "Batch sizes, comma-separated: every sample runs in a batch of each size and "
                  "its bits are compared with the smallest size's")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("-p,--platform", a.platforms, "Platform spec, e.g. ref (repeatable)");
  cmd->add_option("--seed", a.seed, "Seed for generated inputs")->capture_default_str();
  add_limit_options(cmd, &a.limits);
  cmd->add_flag("--json", a.json, "Print results as JSON");
}

nlohmann::json difference_json(const BatchDifference& d) {
  return {{"batch", d.batch},
          {"samples_differing", d.samples_differing},
          {"first_sample", d.first_sample},
          {"output", d.output},
          {"elements", d.elements},
          {"elements_differing", d.elements_differing},
          {"max_ulp", d.max_ulp},
          {"remaining_precision", d.remaining_precision},
          {"node", d.node.empty() ? nlohmann::json() : nlohmann::json(d.node)},
          {"op_type", d.op_type},
          {"covers", d.covers},
          {"located", d.located}};
}

nlohmann::json platform_json(const PlatformInvariance& p) {
  const bool ok = p.verdict == Verdict::kOk;
  nlohmann::json j{{"platform", p.spec},
                   {"library", p.library},
                   {"version", p.library_version},
                   {"verdict", std::string(verdict_name(p.verdict))},
                   {"runs", p.runs},
                   {"seconds", p.seconds},
                   {"invariant", ok ? nlohmann::json(p.invariant) : nlohmann::json()},
                   {"node", nlohmann::json()},
                   {"differences", nlohmann::json::array()}};
  if (!ok) j["reason"] = p.reason;
  for (const auto& d : p.differences) j["differences"].push_back(difference_json(d));
  if (!p.differences.empty() && !p.differences[0].node.empty()) j["node"] = p.differences[0].node;
  return j;
}

std::string sizes_text(const std::vector<int64_t>& batches) {
  std::string s;
  for (size_t i = 1; i < batches.size(); ++i)
    s += (i == 1 ? "" : i + 1 == batches.size() ? " and " : ", ") + std::to_string(batches[i]);
  return s;
}

void print_platform(const PlatformInvariance& p, const std::vector<int64_t>& batches,
                    int64_t samples) {
  const std::string verdict(verdict_name(p.verdict));
  if (p.verdict != Verdict::kOk) {
    std::fprintf(stderr, "infergap invariance: %s: %s: %s\n", p.spec.c_str(), verdict.c_str(),
                 p.reason.c_str());
    std::printf("%-28s %-10s %s\n", p.spec.c_str(), verdict.c_str(), p.reason.c_str());
    return;
  }
  if (p.invariant) {
    std::printf(
        "%-28s %-10s every sample's outputs bitwise identical alone and in batches of %s "
        "(%d runs, %.2f s)\n",
        p.spec.c_str(), "invariant", sizes_text(batches).c_str(), p.runs, p.seconds);
    return;
  }
  std::printf("%-28s %-10s\n", p.spec.c_str(), "VARIES");
  for (const auto& d : p.differences) {
    std::printf(
        "    batch of %lld: %lld of %lld samples differ from batch %lld; sample %lld's %s: "
        "%lld of %lld elements, max %llu ulp",
        static_cast<long long>(d.batch), static_cast<long long>(d.samples_differing),
        static_cast<long long>(samples), static_cast<long long>(batches[0]),
        static_cast<long long>(d.first_sample), d.output.c_str(),
        static_cast<long long>(d.elements_differing), static_cast<long long>(d.elements),
        static_cast<unsigned long long>(d.max_ulp));
    if (d.remaining_precision >= 0) std::printf(", %d bits agree", d.remaining_precision);
    std::printf("\n");
    if (!d.node.empty())
      std::printf("      first node whose rows differ: %s (%s)%s%s\n", d.node.c_str(),
                  d.op_type.c_str(), d.covers.empty() ? "" : ", covering ", d.covers.c_str());
    else
      std::printf("      %s\n", d.located.c_str());
  }
}

void print_header(const InvarianceOutcome& out) {
  std::string base =
      out.batches[0] == 1 ? "alone" : "in batches of " + std::to_string(out.batches[0]);
  std::string axis = out.batch_symbol.empty() ? "" : " (" + out.batch_symbol + ")";
  std::printf("%lld samples along the first axis%s of %zu input(s), each %s and in batches of %s\n",
              static_cast<long long>(out.samples), axis.c_str(), out.batched_inputs.size(),
              base.c_str(), sizes_text(out.batches).c_str());
  for (const auto& in : out.inputs)
    std::printf("input %s: %s from %s\n", in.name.c_str(), in.tensor.describe().c_str(),
                in.source.c_str());
  for (const auto& o : out.skipped_outputs)
    std::printf("output %s has a fixed first dimension: not compared\n", o.c_str());
}

nlohmann::json outcome_json(const std::string& model, const InvarianceOutcome& out) {
  nlohmann::json j{{"model", model},
                   {"batch_symbol", out.batch_symbol},
                   {"batches", out.batches},
                   {"samples", out.samples},
                   {"batched_inputs", out.batched_inputs},
                   {"compared_outputs", out.compared_outputs},
                   {"skipped_outputs", out.skipped_outputs},
                   {"inputs", nlohmann::json::array()},
                   {"platforms", nlohmann::json::array()}};
  for (const auto& in : out.inputs)
    j["inputs"].push_back({{"name", in.name}, {"source", in.source}, {"shape", in.tensor.shape()}});
  for (const auto& p : out.platforms) j["platforms"].push_back(platform_json(p));
  return j;
}

Status run_invariance(const InvarianceArgs& a, int& exit_code) {
  InvarianceRequest request;
  request.model = a.model;
  request.inputs = InputRequest{a.inputs, a.shapes, a.dims, a.seed};
  request.batches = a.batches;
  request.platforms = a.platforms;
  request.timeout_seconds = a.limits.timeout;
  request.max_memory_bytes = a.limits.max_memory_bytes();
  std::vector<int64_t> batches;
  int64_t samples = 0;
  InvarianceHooks hooks;
  hooks.inputs_ready = [&](const InvarianceOutcome& out) {
    batches = out.batches;
    samples = out.samples;
    if (!a.json) print_header(out);
  };
  hooks.platform_done = [&](const PlatformInvariance& p) {
    if (!a.json) print_platform(p, batches, samples);
  };
  IG_ASSIGN_OR_RETURN(const InvarianceOutcome out, check_batch_invariance(request, hooks));
  if (!out.all_ok()) exit_code = kExitFailures;
  if (a.json)
    std::printf("%s\n", outcome_json(a.model, out)
                            .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                            .c_str());
  return Status::Ok();
}

}  // namespace

void add_invariance_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<InvarianceArgs>();
  auto* cmd = app.add_subcommand(
      "invariance", "Whether each sample's output bits depend on the batch it is computed in");
  add_invariance_options(cmd, *args);
  cmd->callback([args, &exit_code] {
    if (Status st = run_invariance(*args, exit_code); !st.ok()) {
      std::fprintf(stderr, "infergap invariance: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
}

}  // namespace ig::cli

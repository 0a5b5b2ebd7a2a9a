// infergap precision DERIVED [--parent FLOAT] [-p PLATFORM] [--rtol R | --top1 | --sqnr DB]
//   [-o FIXED.onnx] [--input NAME=SPEC...] [--json]
// Per layer of a quantized or half-precision model: the error against its float parent in all and
// the error born there; with a bound, the fewest layers to keep in float (workflow/precision.h).
#include <cmath>
#include <cstdio>

#include "cli/commands.h"
#include "cli/input_options.h"
#include "model/parent_record.h"
#include "workflow/precision.h"

namespace ig::cli {

namespace {

struct PrecisionArgs {
  std::string derived, parent, platform = "ref", out;
  std::vector<std::string> inputs, shapes, dims;
  uint64_t seed = 0;
  double rtol = -1, sqnr = std::nan("");
  bool top1 = false, json = false;
  double timeout = 300;
};

std::string db(const std::optional<VsParent>& v) {
  if (!v) return "-";
  if (v->nonfinite) return "Inf/NaN";
  if (std::isinf(v->sqnr_db)) return v->sqnr_db > 0 ? "exact" : "-inf";
  return fmt::format("{:.1f}", v->sqnr_db);
}

void print_outputs(const char* what, const std::vector<OutputCheck>& outs) {
  for (const auto& o : outs) {
    std::printf("%s '%s': rel error %.3g, SQNR %s dB%s\n", what, o.value.c_str(), o.v.rel_error,
                db(o.v).c_str(),
                o.v.top1 < 0    ? ""
                : o.v.top1 == 1 ? ", top-1 agrees"
                                : ", top-1 differs");
  }
}

void print_text(const PrecisionArgs& a, const PrecisionOutcome& o, const PrecisionBound& b) {
  std::printf("%s against its float parent %s on %s: SQNR (dB) per layer, in all and born there\n",
              a.derived.c_str(), a.parent.c_str(), o.platform.c_str());
  std::printf("  %-46s %-18s %8s %10s %6s\n", "layer (node)", "op", "in all", "born here", "share");
  for (const auto& l : o.layers) {
    const double share = l.born_share();
    std::printf(
        "  %-46s %-18s %8s %10s %5s\n", l.node.c_str(), l.op_type.c_str(), db(l.total).c_str(),
        db(l.born).c_str(),
        std::isnan(share) ? "-" : fmt::format("{:.0f}%", 100 * std::min(share, 9.99)).c_str());
  }
  print_outputs("output", o.outputs);
  if (b.kind == PrecisionBound::Kind::kNone) return;
  std::printf("bound (%s): %s\n", describe_bound(b).c_str(), o.meets ? "met" : "missed");
  if (!o.search) return;
  const auto& s = *o.search;
  std::printf("keep-in-float search (models rebuilt by %s with --block): %zu trials\n",
              o.derivation.c_str(), s.trials.size());
  for (const auto& t : s.trials)
    std::printf("  %-6s %3zu in float  %-28s %s\n", t.phase.c_str(), t.kept.size(), t.how.c_str(),
                t.meets ? "meets" : "misses");
  if (!s.found) {
    std::printf("no set found: even with every candidate layer in float the bound is missed\n");
    return;
  }
  std::string kept;
  for (const auto& k : s.kept) kept += (kept.empty() ? "" : ",") + k;
  std::printf("keep in float (%zu, 1-minimal): %s\n", s.kept.size(),
              kept.empty() ? "nothing" : kept.c_str());
  if (!o.fixed_path.empty()) {
    std::printf("wrote %s (--block %s), checked on %s:\n", o.fixed_path.c_str(), kept.c_str(),
                o.platform.c_str());
    print_outputs("  output", o.fixed_outputs);
  }
  std::printf("%lld model runs on %s in all\n", static_cast<long long>(o.runs), o.platform.c_str());
}

Expected<PrecisionBound> bound_of(const PrecisionArgs& a) {
  PrecisionBound b;
  const int given = (a.rtol >= 0) + a.top1 + !std::isnan(a.sqnr);
  if (given > 1) return invalid_argument("give one bound: --rtol, --top1 or --sqnr");
  if (a.rtol >= 0) b = {PrecisionBound::Kind::kRtol, a.rtol};
  if (a.top1) b = {PrecisionBound::Kind::kTop1, 0};
  if (!std::isnan(a.sqnr)) b = {PrecisionBound::Kind::kSqnr, a.sqnr};
  if (b.kind == PrecisionBound::Kind::kNone && !a.out.empty())
    return invalid_argument("-o needs a bound (--rtol, --top1 or --sqnr) to search for");
  return b;
}

Status run_precision_command(PrecisionArgs a) {
  IG_ASSIGN_OR_RETURN(const PrecisionBound bound, bound_of(a));
  if (a.parent.empty()) {  // the parent its lineage names, when it sits beside it unchanged
    const ParentLookup found = find_recorded_parent(a.derived);
    if (found.path.empty()) {
      if (found.missing.empty())
        return invalid_argument("{}: no --parent, and the model records no parent", a.derived);
      return invalid_argument("no --parent, and {}: name the parent with --parent", found.missing);
    }
    std::fprintf(stderr, "infergap precision: %s\n", found.found.c_str());
    a.parent = found.path;
  }
  PrecisionPlan plan;
  plan.derived = a.derived;
  plan.parent = a.parent;
  plan.platform = a.platform;
  plan.inputs = InputRequest{a.inputs, a.shapes, a.dims, a.seed};
  plan.bound = bound;
  plan.out_model = a.out;
  plan.timeout_seconds = a.timeout;
  plan.progress = [](const std::string& s) {
    std::fprintf(stderr, "infergap precision: %s\n", s.c_str());
  };
  IG_ASSIGN_OR_RETURN(const PrecisionOutcome o, run_precision(plan));
  if (a.json)
    std::printf("%s\n", precision_json(o, bound).dump(2).c_str());
  else
    print_text(a, o, bound);
  return Status::Ok();
}

}  // namespace

void add_precision_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<PrecisionArgs>();
  auto* cmd = app.add_subcommand(
      "precision",
      "A quantized or fp16/bf16 model against its float parent: error per layer, in all and "
      "born there, and the fewest layers to keep in float to meet a bound");
  cmd->add_option("model", a->derived, "The derived .onnx (infergap quantize / convert)")
      ->required();
  cmd->add_option("--parent", a->parent,
                  "Its float parent .onnx (default: the parent its lineage names, if beside it "
                  "with the recorded hash)");
  cmd->add_option("-p,--platform", a->platform, "The platform both run on")->capture_default_str();
  cmd->add_option("--input", a->inputs, "NAME=SPEC (as `run`); default: seeded random");
  add_sizing_options(cmd, &a->shapes, &a->dims);
  cmd->add_option("--seed", a->seed, "Seed of generated inputs")->capture_default_str();
  cmd->add_option("--rtol", a->rtol,
                  "Bound: max |derived - parent| / max |parent| over each output");
  cmd->add_flag("--top1", a->top1, "Bound: the top-1 class of every output row agrees");
  cmd->add_option("--sqnr", a->sqnr, "Bound: every output's SQNR against the parent, in dB");
  cmd->add_option("-o,--output", a->out,
                  "Write the model with the found layers kept in float (checked by a run)");
  cmd->add_option("--timeout", a->timeout, "Seconds per model run")->capture_default_str();
  cmd->add_flag("--json", a->json, "Print the result as JSON (docs/FORMATS.md)");
  cmd->footer(
      "Layers are matched by value name (Q/DQ/Cast skipped). 'born here' runs each layer alone "
      "fed the parent's values on the same platform; 'share' is its noise power over the noise "
      "in all. The search ranks layers by born-here error, takes the shortest prefix that meets "
      "the bound, then delta-debugs it to a 1-minimal set; candidates are rebuilt from the "
      "parent by the derived model's lineage (quantize/convert --block).");
  cmd->callback([a, &exit_code] {
    if (Status st = run_precision_command(*a); !st.ok()) {
      std::fprintf(stderr, "infergap precision: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
}

}  // namespace ig::cli

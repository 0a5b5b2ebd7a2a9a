// infergap overflow MODEL16 [--parent FLOAT] [-p PLATFORM] [--input NAME=SPEC...] [--json]
// Where a float16/bfloat16 model leaves its range (analysis/precision/overflow.h).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cli/commands.h"
#include "cli/input_options.h"
#include "model/parent_record.h"
#include "workflow/precision.h"

namespace ig::cli {

namespace {

struct OverflowArgs {
  std::string derived, parent, platform = "ref";
  std::vector<std::string> inputs, shapes, dims;
  uint64_t seed = 0;
  bool json = false;
  double timeout = 300;
  int tight = 5;
};

void print_row(const OverflowRow& r) {
  std::printf("  %-40s %-18s %-8s inf %lld nan %lld saturated %lld", r.node.c_str(),
              r.op_type.c_str(), dtype_name(r.dtype), static_cast<long long>(r.infs),
              static_cast<long long>(r.nans), static_cast<long long>(r.saturated));
  if (r.parent_known)
    std::printf("; parent max |x| %.4g, headroom %.1f bits", r.parent_max, r.headroom_bits);
  std::printf("\n");
}

void print_text(const OverflowArgs& a, const OverflowReport& rep) {
  std::printf("%s on %s: %zu narrow-float values traced\n", a.derived.c_str(), a.platform.c_str(),
              rep.rows.size());
  if (rep.first_overflow.empty()) {
    std::printf("no value overflows%s\n", a.parent.empty() ? "" : " where the parent is finite");
  } else {
    std::printf("first overflows (no input already Inf/NaN):\n");
    for (size_t i : rep.first_overflow) print_row(rep.rows[i]);
  }
  if (!a.parent.empty()) {
    std::vector<const OverflowRow*> tight;
    for (const auto& r : rep.rows)
      if (r.parent_known && !r.overflows()) tight.push_back(&r);
    std::sort(tight.begin(), tight.end(), [](const OverflowRow* x, const OverflowRow* y) {
      return x->headroom_bits < y->headroom_bits;
    });
    if (static_cast<int>(tight.size()) > a.tight) tight.resize(a.tight);
    if (!tight.empty()) std::printf("least headroom among the others:\n");
    for (const auto* r : tight) print_row(*r);
  }
  if (!rep.keep.empty()) {
    std::string keep;
    for (const auto& k : rep.keep) keep += (keep.empty() ? "" : ",") + k;
    const bool bf16 = !rep.rows.empty() && rep.rows.front().dtype == DType::kBFloat16;
    std::printf("keep in float32: infergap convert PARENT --to %s --block %s\n",
                bf16 ? "bf16" : "fp16", keep.c_str());
  }
}

Status run_overflow_command(OverflowArgs a) {
  if (a.parent.empty()) {  // the parent its lineage names, when it sits beside it unchanged
    const ParentLookup found = find_recorded_parent(a.derived);
    if (!found.note().empty())
      std::fprintf(stderr, "infergap overflow: %s\n", found.note().c_str());
    a.parent = found.path;
  }
  OverflowPlan plan;
  plan.derived = a.derived;
  plan.parent = a.parent;
  plan.platform = a.platform;
  plan.inputs = InputRequest{a.inputs, a.shapes, a.dims, a.seed};
  plan.timeout_seconds = a.timeout;
  IG_ASSIGN_OR_RETURN(const OverflowReport rep, run_overflow(plan));
  if (a.json)
    std::printf("%s\n", overflow_json(rep).dump(2).c_str());
  else
    print_text(a, rep);
  return Status::Ok();
}

}  // namespace

void add_overflow_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<OverflowArgs>();
  auto* cmd = app.add_subcommand(
      "overflow",
      "Where a float16/bfloat16 model's values leave the type's range (Inf, NaN, saturation) "
      "while its float parent is finite, and what to keep in float32");
  cmd->add_option("model", a->derived, "The fp16/bf16 .onnx (e.g. from infergap convert)")
      ->required();
  cmd->add_option("--parent", a->parent,
                  "Its float parent .onnx: headroom per value (default: the parent its lineage "
                  "names, if beside it with the recorded hash)");
  cmd->add_option("-p,--platform", a->platform, "The platform that runs it")->capture_default_str();
  cmd->add_option("--input", a->inputs, "NAME=SPEC (as `run`); default: seeded random");
  add_sizing_options(cmd, &a->shapes, &a->dims);
  cmd->add_option("--seed", a->seed, "Seed of generated inputs")->capture_default_str();
  cmd->add_option("--timeout", a->timeout, "Seconds per model run")->capture_default_str();
  cmd->add_flag("--json", a->json, "Print the result as JSON (docs/FORMATS.md)");
  cmd->callback([a, &exit_code] {
    if (Status st = run_overflow_command(*a); !st.ok()) {
      std::fprintf(stderr, "infergap overflow: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
}

}  // namespace ig::cli

// infergap diff A.npy B.npy [--json] [--expect-differ bitwise|tolerance --rtol R --atol A]: every
// comparison metric for two tensors; with --expect-differ, exit 1 when they do not differ (a
// finding's repro.sh checks that its difference is still there). There, tensors of other shapes
// differ, and a wider floating B (the fp64 oracle) is compared rounded to A's type.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "analysis/campaign/data.h"
#include "analysis/compare/compare.h"
#include "cli/commands.h"
#include "model/npy.h"
#include "model/tensor_proto.h"
#include "tensor/convert.h"

namespace ig::cli {

namespace {
Expected<Tensor> read_any(const std::string& path) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".pb") == 0) return read_tensor_pb(path);
  return read_npy(path);
}

// Any bit differs (bitwise), or the campaign's tolerance rule fails: some element off by more than
// atol + rtol * |b|, or NaN or Inf on one side only (tolerance).
bool differs_under(const std::string& mode, const Tensor& a, const Tensor& b, const Comparison& c,
                   double rtol, double atol) {
  if (c.identical) return false;
  if (mode == "bitwise" || !dtype_info(a.dtype()).is_float) return true;
  return !campaign::within_tolerance(a, b, rtol, atol);
}
}  // namespace

void add_diff_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string a, b, expect;
    double rtol = 1e-3, atol = 1e-5;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "diff", "Compare two tensors (.npy or .pb): identity, remaining precision, errors");
  cmd->add_option("a", args->a, "First tensor (the platform)")->required();
  cmd->add_option("b", args->b, "Second tensor (the reference)")->required();
  cmd->add_flag("--json", args->json, "Print as JSON");
  cmd->add_option("--expect-differ", args->expect,
                  "Exit 1 unless A and B differ: in any bit, or beyond --rtol/--atol")
      ->check(CLI::IsMember({"bitwise", "tolerance"}));
  cmd->add_option("--rtol", args->rtol, "Relative tolerance for --expect-differ tolerance")
      ->capture_default_str();
  cmd->add_option("--atol", args->atol, "Absolute tolerance for --expect-differ tolerance")
      ->capture_default_str();
  cmd->callback([args, &exit_code] {
    auto a = read_any(args->a);
    auto b = read_any(args->b);
    for (const auto* t : {&a, &b}) {
      if (!t->ok()) {
        std::fprintf(stderr, "infergap diff: %s\n", t->status().message().c_str());
        exit_code = kExitBadInput;
        return;
      }
    }
    const bool expect = !args->expect.empty();
    if (expect && a->shape() != b->shape()) {
      std::printf("%s vs %s: they differ in shape: %s vs %s\n", args->a.c_str(), args->b.c_str(),
                  a->describe().c_str(), b->describe().c_str());
      return;
    }
    // B in A's float type: a wider B (the oracle) rounded to A's output type, a narrower one (a
    // platform that returned float16 where A returned float32) widened exactly.
    if (expect && a->dtype() != b->dtype() && dtype_info(a->dtype()).is_float &&
        dtype_info(b->dtype()).is_float)
      *b = convert_float_tensor(*b, a->dtype());
    const Comparison c = compare_tensors(*a, *b);
    if (!c.comparable) {
      std::fprintf(stderr, "infergap diff: not comparable: %s\n", c.why_not.c_str());
      exit_code = kExitBadInput;
      return;
    }
    nlohmann::json j{{"a", args->a},
                     {"b", args->b},
                     {"dtype", dtype_name(a->dtype())},
                     {"shape", a->shape()},
                     {"identical", c.identical},
                     {"elements", c.elements},
                     {"differing", c.differing},
                     {"fraction_differing", c.fraction_differing},
                     {"remaining_precision", c.remaining_precision},
                     {"mantissa_bits", c.mantissa_bits},
                     {"max_abs_error", c.max_abs_error},
                     {"max_rel_error", c.max_rel_error},
                     {"max_ulp", c.max_ulp},
                     {"ulp_histogram", c.ulp_histogram},
                     {"cosine_similarity", c.cosine_similarity},
                     {"nan_positions_agree", c.nan_positions_agree},
                     {"inf_positions_agree", c.inf_positions_agree},
                     {"nan_count", {c.nan_count_a, c.nan_count_b}},
                     {"inf_count", {c.inf_count_a, c.inf_count_b}},
                     {"rows", c.rows},
                     {"top1_flips", c.top1_flips},
                     {"top5_overlap", c.top5_overlap}};
    if (expect && !differs_under(args->expect, *a, *b, c, args->rtol, args->atol)) {
      std::fprintf(stderr, "infergap diff: %s and %s do not differ (%s)\n", args->a.c_str(),
                   args->b.c_str(), args->expect.c_str());
      exit_code = kExitFailures;
    }
    if (args->json) {
      std::printf("%s\n", j.dump(2).c_str());
      return;
    }
    std::printf("%s vs %s: %s%s\n", args->a.c_str(), args->b.c_str(), a->describe().c_str(),
                c.identical ? ", bitwise identical" : "");
    if (c.identical) return;
    std::printf("  differing elements   %lld of %lld (%.4g%%)\n",
                static_cast<long long>(c.differing), static_cast<long long>(c.elements),
                100 * c.fraction_differing);
    if (c.remaining_precision >= 0) {
      std::printf("  remaining precision  %d of %d mantissa bits\n", c.remaining_precision,
                  c.mantissa_bits);
      std::printf("  max ulp              %llu\n", static_cast<unsigned long long>(c.max_ulp));
    }
    std::printf("  max abs / rel error  %.6g / %.6g\n", c.max_abs_error, c.max_rel_error);
    std::printf("  cosine similarity    %.9f\n", c.cosine_similarity);
    std::printf("  NaN / Inf positions  %s / %s\n", c.nan_positions_agree ? "agree" : "DIFFER",
                c.inf_positions_agree ? "agree" : "DIFFER");
    if (c.rows > 0) {
      std::printf("  top-1 flips          %lld of %lld rows; top-5 overlap %.3f\n",
                  static_cast<long long>(c.top1_flips), static_cast<long long>(c.rows),
                  c.top5_overlap);
    }
  });
}

}  // namespace ig::cli

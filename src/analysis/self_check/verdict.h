// The self-check of our adapters (docs/ORACLE.md, "Self-check"). Where a platform's output at a
// span is grossly off the oracle while the span's inputs agree with it, `infergap study` re-runs
// the span alone with the values the platform traced at its inputs (study/self_check.h): on the
// platform with its fusion off, and on the oracle. The verdict says which is at fault:
//
// - ill-conditioned: exact arithmetic on the platform's own inputs lands near its output; the op
//   amplifies its inputs' small error, the platform computed what it was given correctly.
// - kernel: the platform's kernel alone, unfused, is as far off: the library's kernel.
// - suspect-fusion: alone and unfused the platform is right, and it had computed the span as one
//   fused group (or a copy of the model it optimised): its fusion, or our adapter's fusion.
// - suspect-adapter: alone the platform is right, and the node was not fused: what our adapter
//   does around the node (layouts, data handed between nodes) is suspect.
// - integer-kernel: alone and unfused the platform is right, and it had run the span as one
//   integer kernel (a QDQ group): unfused it computes in float, so the re-run cannot tell the
//   kernel's integer arithmetic (int16 saturation, requantization) from our adapter's int8
//   mapping; `explain` can, when an emulator configuration reproduces the group.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/oracle/error_spans.h"
#include "core/enum_names.h"

namespace ig {

// A span's output is grossly off past this error, with inputs that agree to kInputsAgree.
inline constexpr double kGrossError = 1e-2;
inline constexpr double kInputsAgree = 1e-5;

enum class SelfCheckVerdict : uint8_t {
  kNotNeeded,  // the span is not grossly off, or its inputs already disagree
  kNotRun,     // needed, and the store holds no re-run (a study with --no-self-check)
  kFailed,     // a re-run did not run ok (its verdict and reason are given)
  kIllConditioned,
  kKernel,
  kSuspectFusion,
  kSuspectAdapter,
  kIntegerKernel,
  kCount
};
inline constexpr auto kSelfCheckVerdictNames =
    std::to_array<std::string_view>({"not-needed", "not-run", "failed", "ill-conditioned", "kernel",
                                     "suspect-fusion", "suspect-adapter", "integer-kernel"});
static_assert(names_cover_enum<SelfCheckVerdict>(kSelfCheckVerdictNames));
std::string_view self_check_verdict_name(SelfCheckVerdict v);

// Output error over kGrossError while the inputs agree to kInputsAgree.
bool needs_self_check(const ErrorSpan& s);

struct SelfCheck {
  SelfCheckVerdict verdict = SelfCheckVerdict::kNotNeeded;
  std::string unfused_spec;  // the platform as re-run (fusion off)
  // The platform's traced output against the oracle's re-run on the platform's own inputs.
  double local_error = -1;
  // The unfused re-run against the same (the oracle's traced output where its re-run failed).
  double unfused_error = -1;
  std::string reason;  // one line: what was re-run and what came out
};

// The verdict for span `s` of `run` from the stored re-runs of that run.
Expected<SelfCheck> self_check_of(const ErrorSpan& s, const RepRun& run, const RepRun& oracle,
                                  const std::vector<StoredSelfCheck>& reruns, TensorCache& cache);

}  // namespace ig

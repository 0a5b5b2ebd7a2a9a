// Origins against the oracle (docs/ORACLE.md, "Origins against the oracle"): for each platform, the
// spans (error_spans.h) where its error against the oracle is born: output error far beyond what
// the error of its inputs explains. Ranked by that jump, worst first per platform, each with what
// the self-check (self_check_verdict.h) found when it re-ran the span alone.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/oracle/error_spans.h"
#include "analysis/precision/quant_steps.h"
#include "analysis/self_check/verdict.h"

namespace ig {

// A span is an origin when its output error is at least this many times what entered it: the
// larger of its inputs' error and the unit roundoff of its output's dtype (a correctly rounded
// result of exact inputs is that far off).
inline constexpr double kBornJump = 100;

// A span whose output is quantized (quant_steps.h: an integer tensor or a DequantizeLinear's
// output) is judged in steps instead, because rounding to a grid turns any input error, however
// small, into a whole step at an element that sits on a rounding boundary: a 1e-6 relative error
// flips about one element in 10^4 of a 256-level grid, and the jump rule would blame every
// QuantizeLinear. When every input is within half a step of the oracle (quantized inputs in their
// own steps, float ones in the output's), the span is an origin when its output is at least
// kStepsBornMax steps off anywhere, or a step off in more than kStepsBornShare of its elements:
// a flip makes one step, and at boundaries only. When an input is already half a step off or more,
// the error came in with it: the jump rule above decides, on the relative errors.
// (kStepsBornMax, kStepsBornShare and kStepsQuietInput live in quant_steps.h: pair origins share
// them.)

struct SpanSteps {
  StepsOff output;             // the worst quantized output against the oracle
  std::string output_value;    // which output that is
  double input_steps_max = 0;  // the largest over the inputs (+inf where one is not finite)
  double input_steps_share = 0;
  bool inputs_measured = true;  // false when some float input could not be put in steps
};

// The span's error in steps against the oracle; nullopt when no output of it is quantized.
Expected<std::optional<SpanSteps>> span_steps(const QuantIndex& index, const ErrorSpan& s,
                                              const RepRun& run, const RepRun& oracle,
                                              TensorCache& cache);
// The steps rule above (`steps` present) or the jump rule.
bool is_born(const ErrorSpan& s, const std::optional<SpanSteps>& steps);

// Local replay (docs/ORACLE.md, "Origins by local replay"): the study re-runs a span alone on the
// oracle fed the platform's own traced inputs (study/self_check.h, an oracle-only re-run). The
// platform's output against that re-run is the error the span adds itself, in its output's unit;
// with a replay, the span is born there when that is at least kReplayShare of its output error (a
// quantized output: when its steps off the re-run meet the steps rule), whatever its inputs
// carried. Replayed: the spans the rules above call born (to confirm them: a QuantizeLinear that
// flips a step because its input came in a fraction of a step off is not born there), and those
// they leave out although their error grew there (by at least kReplayJump, or a quantized output
// off by steps the steps rule would call born were its inputs quiet, with its output notably off:
// kBornJump unit roundoffs of its dtype). Spans without a replay (inputs not traced, beyond
// kReplaysPerRun, a study run with --no-self-check) keep the rules above, and say so. A grossly
// off span that the self-check finds ill-conditioned stays an origin, named so.
inline constexpr double kReplayJump = 2;
inline constexpr double kReplayShare = 0.5;
// At most this many replays per run: the rules' origins first, then by jump.
inline constexpr size_t kReplaysPerRun = 8;

// The span is worth a replay (above).
bool wants_replay(const ErrorSpan& s, const std::optional<SpanSteps>& steps);

struct LocalReplay {
  std::string spec;               // the oracle as re-run
  double local_error = 0;         // the platform's output against the re-run
  std::optional<StepsOff> steps;  // the same in steps, for a quantized output
  bool born = false;
};

enum class BornBy : uint8_t { kJump, kSteps, kReplay };
std::string_view born_by_name(BornBy b);

struct OracleOrigin {
  std::string platform, case_label;
  ErrorSpan span;
  double jump = 0;                 // output_error / max(input_error, unit roundoff)
  std::optional<SpanSteps> steps;  // for a quantized output
  BornBy born_by = BornBy::kJump;
  std::optional<LocalReplay> replay;  // where the study replayed the span
  SelfCheck self_check;
};

// output_error / max(input_error, unit roundoff of the output's dtype); non-float outputs (an
// index, a mask) count as born only when their inputs carry no error at all.
double error_jump(const ErrorSpan& s);
bool is_born(const ErrorSpan& s);

// Per platform in study order, worst jump first; every case with an oracle run. `largest`, when
// given, receives each platform's largest jump whether or not it makes an origin (what a reader
// of "no origin" wants to know next).
Expected<std::vector<OracleOrigin>> oracle_origins(const StudyData& study, TensorCache& cache,
                                                   std::vector<OracleOrigin>* largest = nullptr);

// Per platform, the error (oracle_error.h) of `values` against the oracle in case `c`; platforms
// that did not trace them, or ran no oracle, are left out.
Expected<std::map<std::string, double>> values_oracle_errors(const StudyData& study,
                                                             const CaseData& c,
                                                             const std::vector<std::string>& values,
                                                             TensorCache& cache);

// Per platform, the steps (quant_steps.h) of the quantized `values` against the oracle in case
// `c`; empty when none is quantized.
Expected<std::map<std::string, StepsOff>> values_oracle_steps(
    const StudyData& study, const CaseData& c, const std::vector<std::string>& values,
    TensorCache& cache);

// An error as JSON: a number, or "inf" / "nan" (JSON has neither).
nlohmann::json error_json(double e);

// platform, case, node, node_index, op_type, covers, fused, input_error, output_error, jump,
// born_by, self_check; for a quantized output also step, steps_max, steps_share, input_steps_max
// and input_steps_share; after a local replay, replay {spec, local_error[, local_steps_max,
// local_steps_share]}.
nlohmann::json oracle_origin_json(const OracleOrigin& o);

}  // namespace ig

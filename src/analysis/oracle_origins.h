// Origins against the oracle (README, "Origins against the oracle"): for each platform, the spans
// (error_spans.h) where its error against the oracle is born: output error far beyond what the
// error of its inputs explains. Ranked by that jump, worst first per platform, each with what the
// self-check (self_check_verdict.h) found when it re-ran the span alone.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/error_spans.h"
#include "analysis/self_check_verdict.h"

namespace ig {

// A span is an origin when its output error is at least this many times what entered it: the
// larger of its inputs' error and the unit roundoff of its output's dtype (a correctly rounded
// result of exact inputs is that far off).
inline constexpr double kBornJump = 100;

struct OracleOrigin {
  std::string platform, case_label;
  ErrorSpan span;
  double jump = 0;  // output_error / max(input_error, unit roundoff)
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

// An error as JSON: a number, or "inf" / "nan" (JSON has neither).
nlohmann::json error_json(double e);

// platform, case, node, node_index, op_type, covers, fused, input_error, output_error, jump,
// self_check.
nlohmann::json oracle_origin_json(const OracleOrigin& o);

}  // namespace ig

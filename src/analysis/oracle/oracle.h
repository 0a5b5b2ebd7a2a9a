// Error of each platform against the oracle (DESIGN.md) and a ranking; tolerance advice: the
// smallest atol, rtol and ULP bound per output that accepts every platform.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/study_data.h"

namespace ig {

struct OracleError {
  std::string platform;
  int64_t cases = 0;             // cases compared with the oracle
  double max_abs_error = 0;      // against the oracle's values (fp64 when the oracle is fp64)
  double max_rel_error = 0;      // over elements where the oracle is not 0
  uint64_t max_ulp = 0;          // against the oracle rounded to the platform's dtype
  int remaining_precision = -1;  // against the rounded oracle
  int rank = 0;                  // 1 = closest to the oracle (by max_ulp, then max_abs_error)
  // Quantized outputs (a DequantizeLinear's, or integers): the worst in quantization steps
  // (quant_steps.h), which rank the platforms instead of ULPs; -1 when no output is quantized.
  double steps_max = -1;
  double steps_share = 0;
};

// Compares a platform tensor with an oracle tensor of the same or a wider float dtype.
struct OracleComparison {
  double max_abs_error = 0, max_rel_error = 0;
  uint64_t max_ulp = 0;
  int remaining_precision = -1;
  bool comparable = false;
  std::string why_not;
};
OracleComparison compare_with_oracle(const Tensor& platform, const Tensor& oracle);

// rank, platform, cases, max_ulp, max_abs_error, max_rel_error, remaining_precision.
nlohmann::json oracle_error_json(const OracleError& e);

// The oracle's run of a case: the majority run of the first oracle spec that ran it; null if none.
const RepRun* oracle_run(const StudyData& study, const CaseData& c);

// Empty when the study has no oracle runs.
Expected<std::vector<OracleError>> oracle_ranking(const StudyData& study, TensorCache& cache);

struct ToleranceAdvice {
  std::string model_name, output;
  std::string reference;  // "oracle" or "pairwise"
  int64_t tensors = 0;    // distinct tensors considered (platforms, repetitions, inputs)
  double atol = 0;        // alone (rtol = 0) accepts every platform
  double rtol = 0;        // alone (atol = 0); elements whose reference is 0 need atol
  uint64_t ulp = 0;
};

// Per model and graph output, over every case, platform and repetition.
Expected<std::vector<ToleranceAdvice>> tolerance_advice(const StudyData& study, TensorCache& cache);

}  // namespace ig

// Where a platform's error against the oracle can be measured along a model: at each node whose
// output both traced, against the error of what entered it. Nodes whose values the platform did
// not trace (fused into a group, or not captured) cannot be told apart: their error is attributed
// to the span of nodes between traced values, and the span says which nodes it covers.
#pragma once

#include <string>
#include <vector>

#include "analysis/study_data.h"

namespace ig {

struct ErrorSpan {
  int64_t node_index = 0;  // the node whose traced output closes the span
  std::string node, op_type;
  // The span's nodes in topological order (the closing node last); one for a plain traced node.
  std::vector<int64_t> cover_indices;
  std::vector<std::string> covers;  // their names ("#index" for a node without a name)
  // The platform said it computed these nodes as one (RepRun::covers); otherwise the span only
  // reaches back over values the platform or the oracle did not trace.
  bool fused = false;
  // Fused, and over a DequantizeLinear into a Conv, Gemm or MatMul: the platform ran the span as
  // an integer kernel (model/qdq_group.h), whose arithmetic unfused float nodes do not share.
  bool integer_group = false;
  // Values entering the span that some node produces, traced by both; graph inputs and
  // initializers are equal on every platform and left out (their error is 0).
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;  // the closing node's values traced by both
  double input_error = 0;            // the largest over `inputs` (oracle_error.h), 0 if none
  double output_error = 0;           // the largest over `outputs`
  std::string worst_output;          // the output with that error
  DType dtype = DType::kUndefined;   // of the worst output, on the platform
};

// The case's spans for one platform run against the oracle run, in topological order.
Expected<std::vector<ErrorSpan>> error_spans(const CaseData& c, const RepRun& run,
                                             const RepRun& oracle, TensorCache& cache);

// The largest error (oracle_error.h) of `values` of `run` against `oracle`; -1 where none of them
// is traced by both and comparable.
Expected<double> values_error(const RepRun& run, const RepRun& oracle,
                              const std::vector<std::string>& values, TensorCache& cache);

}  // namespace ig

// A derived model (`infergap quantize`, `convert`) against its float parent, run in one study on
// the same inputs: per layer matched by value name (both models keep node and value names), on
// each platform, the derived model's values against the parent's on that same platform, and
// against the parent's value on the fp64 oracle when the study ran it, as SQNR in dB and relative
// error, and whether the top-1 class of each graph output agrees.
// Values only the derived model has (its QuantizeLinear/DequantizeLinear outputs) are not shown;
// a value the derived model quantizes is measured after its QuantizeLinear
// (analysis/precision/quant_views.h), the form integer platforms trace, read from the model file
// where the study found it.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/study_data.h"

namespace ig {

struct VsParent {
  double sqnr_db = 0;     // 10 log10(sum p^2 / sum (d - p)^2); +inf when equal
  double rel_error = 0;   // max |d - p| / max |p|
  int top1 = -1;          // graph outputs: 1 when the argmax over the last axis agrees everywhere
  int64_t nonfinite = 0;  // Inf/NaN where the parent is finite (then the error is infinite)
};

// `derived` against `parent` (same shape, floating): empty when they cannot be compared. `output`:
// also whether the top-1 of each row of the last axis agrees.
std::optional<VsParent> measure_vs_parent(const Tensor& derived, const Tensor& parent, bool output);

struct ParentRow {
  std::string value, node, op_type;
  bool output = false;                        // a graph output of the derived model
  std::map<std::string, VsParent> platforms;  // by platform label; absent: not traced on both
  // The derived model on each platform (the oracle itself excluded) against the parent's value on
  // the oracle of that platform's host, where the study ran it: the error against the exact
  // answer, of which the same-platform column is only the part the reduced precision adds.
  std::map<std::string, VsParent> vs_oracle;
};

struct ParentCase {
  std::string derived_case, parent_case;
  std::vector<ParentRow> rows;       // the derived model's order
  std::vector<std::string> oracles;  // labels of the parent's oracle runs used by vs_oracle
};

// The cases of `derived_model` (name or hash prefix) that have a case of `parent_model` on the same
// input set; an error names the models when there is none or no value name is shared.
Expected<std::vector<ParentCase>> compare_with_parent(const StudyData& study,
                                                      const std::string& derived_model,
                                                      const std::string& parent_model,
                                                      TensorCache& cache);

nlohmann::json parent_cases_json(const std::vector<ParentCase>& cases);

}  // namespace ig

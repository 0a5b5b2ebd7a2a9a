// What `infergap precision` and `infergap overflow` do with a derived model and its float parent
// on one platform.
//
// precision: per layer, the error against the parent in all (as traced in the derived model's own
// run) and the error born there (the layer alone, fed the parent's values: analysis/
// precision_layers.h); with a bound, the keep-in-float search (analysis/precision/search.h) over
// models rebuilt from the parent by the derived model's lineage (quantize or convert with more
// --block), and the fixed model written.
//
// overflow: the float16/bfloat16 model's values out of range where the parent's are finite.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/precision/overflow.h"
#include "analysis/precision/parent_compare.h"
#include "analysis/precision/search.h"
#include "inputs/inputs.h"

namespace ig {

struct PrecisionBound {
  enum class Kind { kNone, kRtol, kTop1, kSqnr };
  Kind kind = Kind::kNone;
  double value = 0;  // kRtol: max relative error; kSqnr: least dB
};
std::string describe_bound(const PrecisionBound& b);

struct PrecisionPlan {
  std::string derived, parent;  // paths
  std::string platform = "ref";
  InputRequest inputs;
  PrecisionBound bound;   // kNone: the per-layer table alone
  std::string out_model;  // with a bound: where the fixed model goes ("" : not written)
  double timeout_seconds = 300;
  std::function<void(const std::string&)> progress;
};

struct LayerError {
  std::string value, node, op_type;
  std::vector<std::string> members;  // its nodes other than Q/DQ/Cast (a fused group has several)
  std::optional<VsParent> total, born;
  // Of the error at this layer, the share born there: noise power alone over noise power in all.
  double born_share() const;
};

struct OutputCheck {
  std::string value;
  VsParent v;
};

struct PrecisionOutcome {
  std::string platform;
  std::vector<LayerError> layers;
  std::vector<OutputCheck> outputs;  // the derived model's outputs against the parent's
  bool meets = false;                // the derived model meets the bound as it is
  std::string derivation;            // "quantize" or "convert": how the lineage rebuilds it
  std::optional<PrecisionSearch> search;
  std::string fixed_path;
  std::vector<OutputCheck> fixed_outputs;
  int64_t runs = 0;  // model runs on the platform, all of them
};

Expected<PrecisionOutcome> run_precision(const PrecisionPlan& plan);
nlohmann::json precision_json(const PrecisionOutcome& o, const PrecisionBound& bound);

struct OverflowPlan {
  std::string derived, parent;  // parent "" : the derived model's values alone
  std::string platform = "ref";
  InputRequest inputs;
  double timeout_seconds = 300;
};
Expected<OverflowReport> run_overflow(const OverflowPlan& plan);

}  // namespace ig

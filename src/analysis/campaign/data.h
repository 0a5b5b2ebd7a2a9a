// A campaign as its analysis reads it (campaign.cpp): per (variant, input) case, each platform's
// run with its captured values and non-finite counts, and the helpers the sections share.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/campaign/campaign.h"
#include "analysis/exceptional.h"
#include "analysis/relative_precision.h"
#include "analysis/study_data.h"

namespace ig::campaign {

struct Run {
  int64_t id = 0;
  Verdict verdict = Verdict::kError;
  std::string reason;
  std::vector<Rejection> rejections;        // the nodes the platform refused (verdict unsupported)
  std::map<std::string, TensorKey> values;  // every captured value
  std::vector<std::string> outputs;         // graph outputs, in store order
  bool nan = false, inf = false;            // a graph output holds NaN / Inf
  bool nonfinite() const { return nan || inf; }
  bool has_layers = false;  // values beyond the graph outputs were captured
};

struct Case {
  std::string model, input;
  std::vector<StoredNode> nodes;
  nlohmann::json input_recipe;
  std::map<std::string, Run> runs;  // by platform spec (first host's run when merged)
};

struct Data {
  std::vector<std::string> platforms;  // compared platforms, store order
  std::string oracle;
  std::vector<Case> cases;
};

Expected<Data> load(const Store& store, const std::string& oracle);

// The platform's run of a case when it ran ok, else null.
const Run* ran_ok(const Case& c, const std::string& platform);

// Whether a and b agree within atol + rtol*|b| everywhere (NaN only with NaN, Inf only with the
// same Inf); tensors of another shape never agree.
bool within_tolerance(const Tensor& a, const Tensor& b, double rtol, double atol);
// within_tolerance of a run's tensor against the oracle's, rounded once to the run's float dtype
// first: a platform is right when it rounds the exact result correctly to its own dtype.
bool within_oracle_tolerance(const Tensor& run, Tensor oracle, double rtol, double atol);

// Per-value comparison used by origin search: `differs(value)` true, false, or unknown (nullopt).
using ValueDiff = std::function<std::optional<bool>(const std::string& value)>;
// The op type at the divergence origin: the first node (topological order) with a differing
// output whose produced inputs all agree; else the only computing node of a single-op variant;
// else "(unlocated)".
std::string origin_op(const Case& c, const ValueDiff& differs);

// origin_op with the node it names (the last of a fused group; null when unlocated).
struct Origin {
  std::string op = "(unlocated)";
  const StoredNode* node = nullptr;
};
Origin origin_of(const Case& c, const ValueDiff& differs);

// The only computing node of a variant when it is an operator judged on relative precision
// (relative_precision_op) and reads graph inputs and weights alone, so every platform and the
// oracle compute it from the same exact values; null otherwise.
const StoredNode* exact_input_elementwise(const Case& c);

// Compares a run's values with another's: by tolerance against the oracle (the oracle's values
// rounded once to the run's dtype first, so a correctly rounded overflow agrees), or bit for bit
// between platforms (`exact`).
class Differ {
 public:
  Differ(const Store& store, const CampaignAnalysisOptions& opt, bool exact);
  Expected<bool> differs(const Run& a, const Run& b, const std::string& value);
  // Any graph output differs (outputs the other run lacks count as differing).
  Expected<bool> outputs_differ(const Run& a, const Run& b);
  // The op at the divergence origin of a and b (origin_op over their captured values).
  std::string origin(const Case& c, const Run& a, const Run& b);
  Origin origin_at(const Case& c, const Run& a, const Run& b);
  // Every graph output element of r classified against the oracle's (exceptional.h); an output
  // the oracle lacks counts as differing.
  Expected<ExceptionalCounts> against_oracle(const Run& r, const Run& oracle);
  // The graph output of r that lost the most relative precision against the oracle's
  // (relative_precision.h), at the analysis' rtol; nothing lost when no output did.
  Expected<RelativeLoss> relative_loss_against(const Run& r, const Run& oracle);

 private:
  TensorCache cache_;
  const CampaignAnalysisOptions& opt_;
  bool exact_;
};

// Each platform run compiled paired with the same platform run eagerly (its backend's knob table
// names the eager value: ort opt=disabled, onednn fuse=off): (compiled, eager, backend).
struct ModePair {
  std::string compiled, eager, backend;
};
std::vector<ModePair> compiled_eager_pairs(const std::vector<std::string>& platforms,
                                           const KnobTables& knobs);

// The exceptional-values table: per (first op reading an injected input, injected kinds), each
// platform's behaviour (campaign_exceptional.cpp).
Expected<nlohmann::json> exceptional_section(const Store& store, const Data& d,
                                             const CampaignAnalysisOptions& opt);

// The precision axis: each derived model against its parent on the same platform and input, per
// (platform, derivation): top-1 changes and the median output SQNR (campaign_precision.cpp).
Expected<nlohmann::json> precision_section(const Store& store, const Data& d);
// The median (the mean of the middle two for an even count); NaN for none.
double median_of(std::vector<double> values);

}  // namespace ig::campaign

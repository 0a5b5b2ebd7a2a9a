#include "analysis/explain/space.h"

#include <algorithm>
#include <set>

#include "platform/knobs.h"

namespace ig {

namespace {

const std::set<std::string> kReducing = {"Conv",
                                         "ConvTranspose",
                                         "Gemm",
                                         "MatMul",
                                         "AveragePool",
                                         "GlobalAveragePool",
                                         "ReduceSum",
                                         "ReduceMean",
                                         "ReduceSumSquare",
                                         "ReduceL2",
                                         "ReduceL1",
                                         "ReduceLogSumExp",
                                         "Softmax",
                                         "LogSoftmax",
                                         "LayerNormalization",
                                         "InstanceNormalization",
                                         "GroupNormalization",
                                         "LpNormalization",
                                         "Einsum",
                                         "ConvInteger",
                                         "MatMulInteger",
                                         "LRN"};
const std::set<std::string> kTranscendental = {"Exp",
                                               "Log",
                                               "Tanh",
                                               "Sigmoid",
                                               "Erf",
                                               "Pow",
                                               "Softmax",
                                               "LogSoftmax",
                                               "Gelu",
                                               "Softplus",
                                               "Elu",
                                               "Selu",
                                               "Celu",
                                               "Mish",
                                               "Sin",
                                               "Cos",
                                               "Tan",
                                               "Asin",
                                               "Acos",
                                               "Atan",
                                               "Sinh",
                                               "Cosh",
                                               "Asinh",
                                               "Acosh",
                                               "Atanh",
                                               "HardSwish",
                                               "ReduceLogSumExp",
                                               "LayerNormalization",
                                               "Sqrt",
                                               "Reciprocal"};

const std::set<std::string> kQuantized = {"QuantizeLinear", "DequantizeLinear", "QLinearConv",
                                          "QLinearMatMul",  "ConvInteger",      "MatMulInteger"};

// The trait a knob's search names (platform/knobs.h KnobSearch::when), from the node's traits.
bool holds(const NodeTraits& t, const std::string& trait) {
  if (trait == "reduces") return t.reduces;
  if (trait == "convolution") return t.convolution;
  if (trait == "transcendental") return t.transcendental;
  if (trait == "batch-norm") return t.batch_norm;
  if (trait == "nan") return t.has_nan;
  if (trait == "denormal") return t.has_denormal;
  if (trait == "quantized") return t.quantized;
  if (trait == "matrix-product") return t.matrix_product;
  if (trait == "reduced-precision") return t.reduced_precision;
  return false;
}

bool all_hold(const NodeTraits& t, const std::vector<std::string>& traits) {
  return std::all_of(traits.begin(), traits.end(), [&](const auto& w) { return holds(t, w); });
}

}  // namespace

NodeTraits& NodeTraits::operator|=(const NodeTraits& o) {
  reduces |= o.reduces;
  convolution |= o.convolution;
  transcendental |= o.transcendental;
  batch_norm |= o.batch_norm;
  has_nan |= o.has_nan;
  has_denormal |= o.has_denormal;
  quantized |= o.quantized;
  matrix_product |= o.matrix_product;
  reduced_precision |= o.reduced_precision;
  return *this;
}

NodeTraits node_traits(const std::string& op_type) {
  NodeTraits t;
  t.quantized = kQuantized.count(op_type) != 0;
  t.convolution = op_type == "Conv";
  t.reduces = kReducing.count(op_type) != 0;
  t.transcendental = kTranscendental.count(op_type) != 0;
  t.batch_norm = op_type == "BatchNormalization";
  t.matrix_product = op_type == "Conv" || op_type == "MatMul" || op_type == "Gemm";
  return t;
}

std::vector<Knobs> single_knob_candidates(const NodeTraits& t) {
  std::vector<Knobs> out;
  for (const auto& trial : registered_trials())
    if (all_hold(t, trial.when)) out.push_back(trial.options);
  return out;
}

std::map<std::string, std::vector<std::string>> combinable_knobs(const NodeTraits& t) {
  std::map<std::string, std::vector<std::string>> k;
  auto table = registered_knobs().find("ref");
  if (table == registered_knobs().end()) return k;
  for (const auto& knob : table->second)
    if (!knob.search.combine.empty() && all_hold(t, knob.search.when))
      k[knob.key] = knob.search.combine;
  return k;
}

bool is_search_trait(const std::string& trait) {
  NodeTraits all;
  all.reduces = all.convolution = all.transcendental = all.batch_norm = all.has_nan =
      all.has_denormal = all.quantized = all.matrix_product = all.reduced_precision = true;
  return holds(all, trait);
}

std::string ref_spec(const Knobs& k) {
  std::string s = "ref";
  char sep = ':';
  for (const auto& [key, value] : k) {
    s += sep + key + "=" + value;
    sep = ',';
  }
  return s;
}

}  // namespace ig

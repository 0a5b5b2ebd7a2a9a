// Elementwise functions of one tensor, softmax and Clip, each as the ATen function PyTorch's
// module or functional calls (nn.ReLU -> at::relu, nn.Hardswish -> at::hardswish, ...).
#include <limits>
#include <map>

#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

using Fn = at::Tensor (*)(const at::Tensor&, const Node&);

const std::map<std::string, Fn>& functions() {
  static const std::map<std::string, Fn> table = {
      {"Relu", [](const at::Tensor& t, const Node&) { return at::relu(t); }},
      {"Sigmoid", [](const at::Tensor& t, const Node&) { return at::sigmoid(t); }},
      {"Tanh", [](const at::Tensor& t, const Node&) { return at::tanh(t); }},
      {"Exp", [](const at::Tensor& t, const Node&) { return at::exp(t); }},
      {"Log", [](const at::Tensor& t, const Node&) { return at::log(t); }},
      {"Sqrt", [](const at::Tensor& t, const Node&) { return at::sqrt(t); }},
      {"Abs", [](const at::Tensor& t, const Node&) { return at::abs(t); }},
      {"Neg", [](const at::Tensor& t, const Node&) { return at::neg(t); }},
      {"Erf", [](const at::Tensor& t, const Node&) { return at::erf(t); }},
      {"Reciprocal", [](const at::Tensor& t, const Node&) { return at::reciprocal(t); }},
      {"Floor", [](const at::Tensor& t, const Node&) { return at::floor(t); }},
      {"Ceil", [](const at::Tensor& t, const Node&) { return at::ceil(t); }},
      {"Sin", [](const at::Tensor& t, const Node&) { return at::sin(t); }},
      {"Cos", [](const at::Tensor& t, const Node&) { return at::cos(t); }},
      {"Sign", [](const at::Tensor& t, const Node&) { return at::sign(t); }},
      {"Not", [](const at::Tensor& t, const Node&) { return at::logical_not(t); }},
      {"Softplus", [](const at::Tensor& t, const Node&) { return at::softplus(t); }},
      {"Softsign", [](const at::Tensor& t, const Node&) { return t / (at::abs(t) + 1); }},
      {"HardSwish", [](const at::Tensor& t, const Node&) { return at::hardswish(t); }},
      {"Mish", [](const at::Tensor& t, const Node&) { return at::mish(t); }},
      {"LeakyRelu", [](const at::Tensor& t,
                       const Node& n) { return at::leaky_relu(t, n.attr_float("alpha", 0.01f)); }},
      {"Elu",
       [](const at::Tensor& t, const Node& n) { return at::elu(t, n.attr_float("alpha", 1.0f)); }},
      {"Celu",
       [](const at::Tensor& t, const Node& n) { return at::celu(t, n.attr_float("alpha", 1.0f)); }},
      {"Selu",
       [](const at::Tensor& t, const Node& n) {
         const double alpha = n.attr_float("alpha", 1.67326319217681884765625f);
         const double gamma = n.attr_float("gamma", 1.05070102214813232421875f);
         return at::elu(t, alpha, gamma);
       }},
      {"HardSigmoid",
       [](const at::Tensor& t, const Node& n) {
         // nn.Hardsigmoid is alpha=1/6, beta=0.5 only; other slopes are written out.
         const float alpha = n.attr_float("alpha", 0.2f), beta = n.attr_float("beta", 0.5f);
         if (alpha == 1.0f / 6 && beta == 0.5f) return at::hardsigmoid(t);
         return at::clamp(t * alpha + beta, 0, 1);
       }},
      {"Gelu", [](const at::Tensor& t,
                  const Node& n) { return at::gelu(t, n.attr_string("approximate", "none")); }},
      {"ThresholdedRelu",
       [](const at::Tensor& t, const Node& n) {
         const double alpha = n.attr_float("alpha", 1.0f);
         return at::threshold(t, alpha, 0);
       }},
  };
  return table;
}

Expected<OpResult> unary(const OpInputs& x) {
  const Fn fn = functions().at(x.node.op_type);
  return one(fn(x.at(0), x.node), "aten::" + x.node.op_type);
}

// Before opset 13, Softmax flattens to 2-D at `axis` and normalises each row.
Expected<OpResult> softmax(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  const bool log = x.node.op_type == "LogSoftmax";
  const int64_t axis = x.node.attr_int("axis", x.opset < 13 ? 1 : -1);
  if (X.dim() == 0) return invalid_argument("{}: softmax of a scalar", x.node.label());
  IG_ASSIGN_OR_RETURN(auto axes, normalize_axes(x.node, {axis}, X.dim()));
  const char* kernel = log ? "aten::log_softmax" : "aten::softmax";
  if (x.opset >= 13) {
    return one(log ? at::log_softmax(X, axes[0]) : at::softmax(X, axes[0]), kernel);
  }
  int64_t inner = 1;
  for (int64_t d = axes[0]; d < X.dim(); ++d) inner *= X.size(d);
  const at::Tensor rows = X.reshape({inner == 0 ? 0 : X.numel() / inner, inner});
  const at::Tensor y = log ? at::log_softmax(rows, 1) : at::softmax(rows, 1);
  return one(y.reshape(X.sizes()), kernel);
}

Expected<OpResult> clip(const OpInputs& x) {
  c10::optional<at::Scalar> lo, hi;
  if (x.opset < 11) {
    lo = x.node.attr_float("min", std::numeric_limits<float>::lowest());
    hi = x.node.attr_float("max", std::numeric_limits<float>::max());
  } else {
    if (x.has(1)) lo = x.at(1).item();
    if (x.has(2)) hi = x.at(2).item();
  }
  // nn.ReLU6 is hardtanh(0, 6); other clips are clamp.
  if (lo && hi && lo->toDouble() == 0.0 && hi->toDouble() == 6.0) {
    return one(at::hardtanh(x.at(0), 0, 6), "aten::hardtanh");
  }
  return one(at::clamp(x.at(0), lo, hi), "aten::clamp");
}

Expected<OpResult> prelu(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  const at::Tensor& slope = x.at(1);
  // nn.PReLU exports its weight as [C, 1, 1]: at::prelu takes it as a vector over channels.
  if (X.dim() >= 2 && (slope.numel() == X.size(1) || slope.numel() == 1)) {
    bool per_channel = slope.dim() <= 1 || slope.size(0) == slope.numel();
    if (per_channel) return one(at::prelu(X, slope.reshape({slope.numel()})), "aten::prelu");
  }
  return one(at::where(X >= 0, X, X * slope), "aten::where");
}

}  // namespace

const std::vector<OpDef>& unary_ops() {
  static const std::vector<OpDef> table = [] {
    std::vector<OpDef> t;
    for (const auto& [name, fn] : functions())
      t.push_back({"", name, 1, kMaxOpset, unary, nullptr});
    t.push_back({"", "Softmax", 1, kMaxOpset, softmax, nullptr});
    t.push_back({"", "LogSoftmax", 1, kMaxOpset, softmax, nullptr});
    t.push_back({"", "Clip", 1, kMaxOpset, clip, nullptr});
    t.push_back({"", "PRelu", 1, kMaxOpset, prelu, nullptr});
    return t;
  }();
  return table;
}

}  // namespace ig::torchb

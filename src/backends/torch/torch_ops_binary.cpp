// Elementwise functions of two or more tensors with ONNX's (numpy's) broadcasting, which ATen
// shares. Integer Div truncates in ONNX, so it is at::div with rounding_mode="trunc".
#include <map>

#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

using Fn = at::Tensor (*)(const at::Tensor&, const at::Tensor&);

const std::map<std::string, Fn>& functions() {
  static const std::map<std::string, Fn> table = {
      {"Add", [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); }},
      {"Sub", [](const at::Tensor& a, const at::Tensor& b) { return at::sub(a, b); }},
      {"Mul", [](const at::Tensor& a, const at::Tensor& b) { return at::mul(a, b); }},
      {"Div",
       [](const at::Tensor& a, const at::Tensor& b) {
         if (at::isIntegralType(a.scalar_type(), true)) return at::div(a, b, "trunc");
         return at::div(a, b);
       }},
      {"Pow", [](const at::Tensor& a, const at::Tensor& b) { return at::pow(a, b).to(a.dtype()); }},
      {"Max", [](const at::Tensor& a, const at::Tensor& b) { return at::maximum(a, b); }},
      {"Min", [](const at::Tensor& a, const at::Tensor& b) { return at::minimum(a, b); }},
      {"Sum", [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); }},
      {"Equal", [](const at::Tensor& a, const at::Tensor& b) { return at::eq(a, b); }},
      {"Greater", [](const at::Tensor& a, const at::Tensor& b) { return at::gt(a, b); }},
      {"Less", [](const at::Tensor& a, const at::Tensor& b) { return at::lt(a, b); }},
      {"GreaterOrEqual", [](const at::Tensor& a, const at::Tensor& b) { return at::ge(a, b); }},
      {"LessOrEqual", [](const at::Tensor& a, const at::Tensor& b) { return at::le(a, b); }},
      {"And", [](const at::Tensor& a, const at::Tensor& b) { return at::logical_and(a, b); }},
      {"Or", [](const at::Tensor& a, const at::Tensor& b) { return at::logical_or(a, b); }},
      {"Xor", [](const at::Tensor& a, const at::Tensor& b) { return at::logical_xor(a, b); }},
  };
  return table;
}

// Variadic Max/Min/Sum fold left to right, as torch.stack(...).sum would not: ONNX's order.
Expected<OpResult> binary(const OpInputs& x) {
  if (x.in.empty() || !x.has(0)) return invalid_argument("{}: no inputs", x.node.label());
  const Fn fn = functions().at(x.node.op_type);
  at::Tensor acc = x.at(0);
  for (size_t i = 1; i < x.in.size(); ++i) acc = fn(acc, x.at(i));
  if (x.in.size() == 1) acc = acc.clone();
  return one(acc, "aten::" + x.node.op_type);
}

Expected<OpResult> mean(const OpInputs& x) {
  at::Tensor acc = x.at(0);
  for (size_t i = 1; i < x.in.size(); ++i) acc = at::add(acc, x.at(i));
  return one(at::div(acc, static_cast<int64_t>(x.in.size())), "aten::add,div");
}

Expected<OpResult> where(const OpInputs& x) {
  return one(at::where(x.at(0), x.at(1), x.at(2)), "aten::where");
}

}  // namespace

const std::vector<OpDef>& binary_ops() {
  static const std::vector<OpDef> table = [] {
    std::vector<OpDef> t;
    for (const auto& [name, fn] : functions())
      t.push_back({"", name, 1, kMaxOpset, binary, nullptr});
    t.push_back({"", "Mean", 1, kMaxOpset, mean, nullptr});
    t.push_back({"", "Where", 9, kMaxOpset, where, nullptr});
    return t;
  }();
  return table;
}

}  // namespace ig::torchb

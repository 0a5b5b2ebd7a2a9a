#include "analysis/precision/quant_views.h"

#include "model/tensor_proto.h"

namespace ig {

namespace {

bool scalar_of(const std::map<std::string, const onnx::TensorProto*>& inits,
               const std::string& name, double* out) {
  auto it = inits.find(name);
  if (it == inits.end()) return false;
  auto t = tensor_from_proto(*it->second);
  if (!t.ok() || t->numel() != 1) return false;
  *out = t->as_double(0);
  return true;
}

}  // namespace

std::map<std::string, QuantizedView> quantized_views(const onnx::GraphProto& g) {
  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& i : g.initializer()) inits[i.name()] = &i;
  std::map<std::string, QuantizedView> out;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (n.op_type() != "QuantizeLinear" || n.input_size() < 2 || n.output_size() < 1) continue;
    if (out.count(n.input(0))) continue;
    QuantizedView v{n.output(0), n.name(), i, 1, 0};
    double zp = 0;
    if (!scalar_of(inits, n.input(1), &v.scale)) continue;
    if (n.input_size() > 2 && !n.input(2).empty() && !scalar_of(inits, n.input(2), &zp)) continue;
    v.zero_point = static_cast<int64_t>(zp);
    out[n.input(0)] = v;
  }
  return out;
}

Tensor dequantize_view(const Tensor& q, const QuantizedView& view) {
  Tensor out(DType::kFloat32, q.shape());
  float* o = out.data<float>();
  for (int64_t i = 0; i < q.numel(); ++i)
    o[i] = static_cast<float>((q.as_double(i) - static_cast<double>(view.zero_point)) * view.scale);
  return out;
}

}  // namespace ig

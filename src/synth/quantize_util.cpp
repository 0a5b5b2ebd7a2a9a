#include "synth/quantize_util.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

namespace ig {

QParams activation_qparams(double min, double max, bool signed_activations) {
  double lo = std::min(min, 0.0), hi = std::max(max, 0.0);
  const double qmin = signed_activations ? -127 : 0, qmax = signed_activations ? 127 : 255;
  if (signed_activations) {
    const double a = std::max(std::fabs(lo), std::fabs(hi));
    lo = -a;
    hi = a;
  }
  const auto scale = static_cast<float>((hi - lo) / (qmax - qmin));
  if (!(scale >= FLT_MIN) || !std::isfinite(scale)) return {1.0f, 0};
  if (signed_activations) return {scale, 0};
  const double zp = std::nearbyint(qmin - lo / static_cast<double>(scale));
  return {scale, static_cast<int32_t>(std::clamp(zp, qmin, qmax))};
}

ChannelQuant quantize_per_channel(const Tensor& w, int axis, bool reduce_range) {
  const double qmax = reduce_range ? 63 : 127;
  const int64_t channels = w.dim(axis);
  int64_t inner = 1;
  for (int d = axis + 1; d < w.rank(); ++d) inner *= w.dim(d);
  auto channel = [&](int64_t i) { return (i / inner) % channels; };
  std::vector<double> amax(static_cast<size_t>(channels), 0.0);
  for (int64_t i = 0; i < w.numel(); ++i) {
    const double v = w.as_double(i);
    auto& m = amax[static_cast<size_t>(channel(i))];
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  }
  ChannelQuant out{Tensor(DType::kInt8, w.shape()), {}};
  for (double a : amax) {
    const auto s = static_cast<float>(a / qmax);
    out.scales.push_back(s >= FLT_MIN ? s : 1.0f);
  }
  auto* q = out.q.data<int8_t>();
  for (int64_t i = 0; i < w.numel(); ++i) {
    const double v = w.as_double(i) / out.scales[static_cast<size_t>(channel(i))];
    q[i] = static_cast<int8_t>(std::clamp(std::nearbyint(std::isfinite(v) ? v : 0), -qmax, qmax));
  }
  return out;
}

Tensor quantize_bias(const Tensor& b, float x_scale, const std::vector<float>& w_scales,
                     std::vector<float>* b_scales) {
  Tensor q(DType::kInt32, b.shape());
  b_scales->clear();
  for (float ws : w_scales) b_scales->push_back(x_scale * ws);
  constexpr double lim = std::numeric_limits<int32_t>::max();
  for (int64_t i = 0; i < b.numel(); ++i) {
    const double v = b.as_double(i) / (*b_scales)[static_cast<size_t>(i)];
    q.data<int32_t>()[i] =
        static_cast<int32_t>(std::clamp(std::nearbyint(std::isfinite(v) ? v : 0), -lim, lim));
  }
  return q;
}

NameSet::NameSet(const onnx::GraphProto& g) {
  for (const auto& n : g.node()) {
    used_.insert(n.name());
    for (const auto& o : n.output()) used_.insert(o);
    for (const auto& i : n.input()) used_.insert(i);
  }
  for (const auto& t : g.initializer()) used_.insert(t.name());
  for (const auto& i : g.input()) used_.insert(i.name());
  for (const auto& o : g.output()) used_.insert(o.name());
}

std::string NameSet::take(const std::string& hint) {
  std::string name = hint;
  for (int k = 1; used_.count(name); ++k) name = hint + "_" + std::to_string(k);
  used_.insert(name);
  return name;
}

onnx::NodeProto make_node(const std::string& op, const std::string& name,
                          const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(name);
  for (const auto& i : inputs) n.add_input(i);
  n.add_output(output);
  return n;
}

void set_int_attr(onnx::NodeProto& n, const std::string& key, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& key) {
  for (const auto& a : n.attribute())
    if (a.name() == key) return &a;
  return nullptr;
}

int64_t int_attr_or(const onnx::NodeProto& n, const std::string& key, int64_t fallback) {
  const auto* a = find_attr(n, key);
  return a ? a->i() : fallback;
}

int64_t default_opset(const onnx::ModelProto& model) {
  int64_t version = 0;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") version = o.version();
  return version;
}

}  // namespace ig

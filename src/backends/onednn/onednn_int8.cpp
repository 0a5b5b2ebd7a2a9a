// Integer convolution and matmul for QDQ groups; reorders for lone QuantizeLinear and
// DequantizeLinear.
#include "backends/onednn/onednn_int8.h"

#include <cmath>

#include "backends/library/qdq_checks.h"
#include "backends/library/window.h"
#include "backends/onednn/onednn_ops.h"
#include "tensor/hash.h"

namespace ig::onednn {

namespace {

using dnnl::memory;
constexpr auto kS8 = memory::data_type::s8;

using Quant = QdqQuant;

int64_t out_channels(const Node& h, const Tensor& w) {
  if (h.op_type == "Conv") return w.dim(0);
  return h.op_type == "Gemm" && h.attr_int("transB", 0) != 0 ? w.dim(0) : w.dim(1);
}

// The bias in the accumulator's units (x_scale * w_scale[c]). An int32 bias whose scale is that
// product (what ONNX Runtime's quantizer writes) is taken as its integers, as integer kernels
// add it; any other is divided by the product.
Expected<Tensor> acc_bias(const Model& m, const QdqGroup& grp, const std::vector<double>& acc,
                          const TensorLookup& values) {
  const Node& h = m.graph.nodes[grp.head];
  const int64_t oc = static_cast<int64_t>(acc.size());
  Tensor out(DType::kFloat32, {oc});
  float* b = out.data<float>();
  const Tensor* src = nullptr;
  std::vector<float> scales;
  if (grp.b) {
    const Node& db = m.graph.nodes[grp.b->node];
    IG_ASSIGN_OR_RETURN(Quant bq, qdq_quant_of(db, values));
    scales = bq.scales;
    IG_ASSIGN_OR_RETURN(src, qdq_value(values, grp.b->owned ? db.inputs[0] : db.outputs[0]));
  } else {
    IG_ASSIGN_OR_RETURN(src, qdq_value(values, h.inputs[2]));
  }
  if (src->numel() != oc || (!scales.empty() && scales.size() != 1 && scales.size() != acc.size()))
    return unsupported("{}: bias {} does not hold one value per output channel ({})", h.label(),
                       src->describe(), oc);
  for (int64_t c = 0; c < oc; ++c) {
    const double v = src->as_double(c);
    if (scales.empty()) {
      b[c] = static_cast<float>(v / acc[c]);
      continue;
    }
    const double s = scales[scales.size() == 1 ? 0 : c];
    const bool acc_units = std::abs(s - acc[c]) <= 1e-6 * acc[c];
    // A float bias from a shared DequantizeLinear is (q * s) rounded once: q comes back exactly.
    const double q = grp.b->owned ? v : std::nearbyint(v / s);
    b[c] = static_cast<float>(acc_units ? q : q * s / acc[c]);
  }
  return out;
}

Expected<OpResult> int8_conv(Ctx& c, const Node& h, const Tensor& X, const Tensor& W,
                             const Tensor* bias, const dnnl::primitive_attr& attr,
                             memory::data_type dst_type) {
  const int64_t group = h.attr_int("group", 1);
  if (X.rank() < 3 || X.rank() > 5 || W.rank() != X.rank()) {
    return unsupported("{}: oneDNN int8 convolution needs 1 to 3 spatial dims ({}, {})", h.label(),
                       X.describe(), W.describe());
  }
  const Shape kernel(W.shape().begin() + 2, W.shape().end());
  IG_ASSIGN_OR_RETURN(Window w, window_of(h, X.shape(), kernel, false));
  const int64_t oc = W.dim(0);
  if (group < 1 || oc % group != 0 || X.dim(1) != W.dim(1) * group) {
    return invalid_argument("{}: channels {} / weights {} / group {} do not match", h.label(),
                            X.dim(1), W.describe(), group);
  }
  Shape out = {X.dim(0), oc};
  out.insert(out.end(), w.out.begin(), w.out.end());
  Shape wshape = W.shape();
  if (group > 1) {
    wshape = {group, oc / group, W.dim(1)};
    wshape.insert(wshape.end(), kernel.begin(), kernel.end());
  }
  const memory::desc src_md(to_dims(X.shape()), dnnl_type(X.dtype()), kAnyLayout);
  const memory::desc w_md(to_dims(wshape), kS8, kAnyLayout);
  const memory::desc b_md =
      bias ? memory::desc({oc}, memory::data_type::f32, kAnyLayout) : memory::desc();
  const memory::desc dst_md(to_dims(out), dst_type, kAnyLayout);
  dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                    dnnl::algorithm::convolution_direct, src_md, w_md, b_md, dst_md,
                                    w.strides, minus_one(w.dilations), w.pad_begin, w.pad_end);
  auto pd = [&] { return dnnl::convolution_forward::primitive_desc(d, attr, c.eng); };
  std::vector<Arg> args = {{DNNL_ARG_SRC, &X, plain_md(X)},
                           {DNNL_ARG_WEIGHTS, &W, plain_md(wshape, kS8)}};
  if (bias) args.push_back({DNNL_ARG_BIAS, bias, plain_md(*bias)});
  return execute<dnnl::convolution_forward>(c, pd, args, out);
}

// Gemm (2-D A) and MatMul (A's leading dims flattened into rows) with 2-D constant weights.
Expected<OpResult> int8_matmul(Ctx& c, const Node& h, const Tensor& X, const Tensor& W,
                               const Tensor* bias, const dnnl::primitive_attr& attr,
                               memory::data_type dst_type) {
  const bool tb = h.op_type == "Gemm" && h.attr_int("transB", 0) != 0;
  if (X.rank() < 2 || W.rank() != 2 || (h.op_type == "Gemm" && X.rank() != 2))
    return unsupported("{}: int8 {} of {} by {} is not mapped", h.label(), h.op_type, X.describe(),
                       W.describe());
  const int64_t K = X.dim(-1), N = tb ? W.dim(0) : W.dim(1);
  if ((tb ? W.dim(1) : W.dim(0)) != K) {
    return invalid_argument("{}: {} and {} do not multiply", h.label(), X.describe(), W.describe());
  }
  const int64_t M = X.numel() / K;
  const Tensor A = X.reshaped({M, K});
  const memory::desc w_user(dims{K, N}, kS8, tb ? dims{1, K} : dims{N, 1});
  const memory::desc b_md = bias ? plain_md({1, N}) : memory::desc();
  dnnl::matmul::desc d(plain_md(A), memory::desc(dims{K, N}, kS8, kAnyLayout), b_md,
                       plain_md({M, N}, dst_type));
  auto pd = [&] { return dnnl::matmul::primitive_desc(d, attr, c.eng); };
  std::vector<Arg> args = {{DNNL_ARG_SRC, &A, plain_md(A)}, {DNNL_ARG_WEIGHTS, &W, w_user}};
  if (bias) args.push_back({DNNL_ARG_BIAS, bias, b_md});
  IG_ASSIGN_OR_RETURN(OpResult r, execute<dnnl::matmul>(c, pd, args, {M, N}));
  Shape out = X.shape();
  out.back() = N;
  r.out = r.out.reshaped(out);
  return r;
}

}  // namespace

Expected<OpResult> reorder_scaled(Ctx& c, const Tensor& in, DType to,
                                  const std::vector<float>& scales, int axis, int32_t src_zp,
                                  int32_t dst_zp) {
  if (dnnl_type(in.dtype()) == memory::data_type::undef ||
      dnnl_type(to) == memory::data_type::undef || in.dtype() == DType::kBFloat16 ||
      to == DType::kBFloat16) {
    return unsupported("a oneDNN reorder from {} to {} is not mapped", in.describe(),
                       dtype_name(to));
  }
  Tensor out(to, in.shape());
  dnnl::primitive_attr a;
  a.set_output_scales(scales.size() > 1 ? 1 << axis : 0, scales);
  if (src_zp != 0) a.set_zero_points(DNNL_ARG_SRC, 0, {src_zp});
  if (dst_zp != 0) a.set_zero_points(DNNL_ARG_DST, 0, {dst_zp});
  memory src = wrap(c, in);
  memory dst = wrap(c, out);
  const dnnl::reorder::primitive_desc pd(c.eng, src.get_desc(), c.eng, dst.get_desc(), a);
  dnnl::reorder(pd).execute(c.strm, src, dst);
  c.strm.wait();
  return OpResult{std::move(out), pd.impl_info_str()};
}

Expected<OpResult> run_qdq_group(Ctx& c, const Model& model, const QdqGroup& grp,
                                 const TensorLookup& values) {
  IG_RETURN_IF_ERROR(check_qdq_group(model, grp, values));
  const Graph& g = model.graph;
  IG_ASSIGN_OR_RETURN(QdqGroupOperands o, qdq_group_operands(model, grp, values));
  const Node& h = o.head;
  const Node& dx = o.dx;
  const Node& dw = o.dw;
  const Quant& xq = o.x;
  const Quant& wq = o.w;
  // The integers: the DequantizeLinear's input, or its shared output quantized again.
  Tensor X, W;
  if (grp.x.owned) {
    IG_ASSIGN_OR_RETURN(const Tensor* t, qdq_value(values, dx.inputs[0]));
    X = *t;
  } else {
    IG_ASSIGN_OR_RETURN(const Tensor* f, qdq_value(values, dx.outputs[0]));
    IG_ASSIGN_OR_RETURN(OpResult r,
                        reorder_scaled(c, *f, xq.type, {1.0f / xq.scales[0]}, 0, 0, xq.zp));
    X = std::move(r.out);
  }
  if (grp.w.owned) {
    IG_ASSIGN_OR_RETURN(const Tensor* t, qdq_value(values, dw.inputs[0]));
    W = *t;
  } else {
    IG_ASSIGN_OR_RETURN(const Tensor* f, qdq_value(values, dw.outputs[0]));
    std::vector<float> inv;
    for (float s : wq.scales) inv.push_back(1.0f / s);
    IG_ASSIGN_OR_RETURN(OpResult r, reorder_scaled(c, *f, DType::kInt8, inv, o.w_axis, 0, 0));
    W = std::move(r.out);
  }
  if (W.rank() < 2) return unsupported("{}: weights {} are not mapped", h.label(), W.describe());
  const int64_t oc = out_channels(h, W);
  if (wq.scales.size() != 1 && static_cast<int64_t>(wq.scales.size()) != oc)
    return invalid_argument("{}: {} weight scales for {} channels", dw.label(), wq.scales.size(),
                            oc);
  std::vector<double> acc(static_cast<size_t>(oc));
  for (int64_t k = 0; k < oc; ++k)
    acc[k] = double(xq.scales[0]) * double(wq.scales[wq.scales.size() == 1 ? 0 : k]);
  std::optional<Tensor> bias;
  if (grp.b || (h.op_type != "MatMul" && h.inputs.size() > 2 && !h.inputs[2].empty())) {
    IG_ASSIGN_OR_RETURN(bias, acc_bias(model, grp, acc, values));
  }
  // dst = round(relu(scale * (acc + bias))) + dst_zp, scale = x_scale * w_scale[c] / y_scale.
  Quant yq{{1.0f}, 0, DType::kFloat32};
  if (grp.q) {
    IG_ASSIGN_OR_RETURN(yq, qdq_quant_of(g.nodes[*grp.q], values));
  }
  std::vector<float> scales;
  for (double a : acc) scales.push_back(static_cast<float>(grp.q ? a / yq.scales[0] : a));
  bool common = true;
  for (float s : scales) common = common && s == scales[0];
  dnnl::primitive_attr attr;
  attr.set_output_scales(common ? 0 : 1 << 1, common ? std::vector<float>{scales[0]} : scales);
  if (xq.zp != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {xq.zp});
  if (yq.zp != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {yq.zp});
  dnnl::post_ops ops;
  if (grp.act) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0, 0);
  attr.set_post_ops(ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const memory::data_type dst_type = dnnl_type(yq.type);
  if (dst_type == memory::data_type::undef)
    return unsupported("{}: output type {} is not mapped", h.label(), dtype_name(yq.type));
  const Tensor* b = bias ? &*bias : nullptr;
  IG_ASSIGN_OR_RETURN(OpResult r, h.op_type == "Conv" ? int8_conv(c, h, X, W, b, attr, dst_type)
                                                      : int8_matmul(c, h, X, W, b, attr, dst_type));
  r.impl = fmt::format("int8 {}s8 {}", X.dtype() == DType::kUInt8 ? "u8" : "s8", r.impl);
  return r;
}

std::string qdq_cache_key(const Model& model, const QdqGroup& grp, const TensorLookup& values) {
  const Graph& g = model.graph;
  std::string key = "qdq|" + std::to_string(grp.head);
  auto add = [&](const std::string& name, bool by_value) {
    const Tensor* t = name.empty() ? nullptr : values(name);
    key += t ? "|" + t->describe() : "|-";
    if (t && by_value) key += fmt::format(":{:016x}", tensor_hash(*t));
  };
  for (const std::string& in : g.nodes[grp.head].inputs) add(in, false);
  std::vector<size_t> quant = {grp.x.node, grp.w.node};
  if (grp.b) quant.push_back(grp.b->node);
  if (grp.q) quant.push_back(*grp.q);
  for (size_t n : quant) {
    const Node& node = g.nodes[n];
    add(node.inputs[0], false);
    // Scales and zero points are compiled into the primitive.
    for (size_t i = 1; i < node.inputs.size(); ++i) add(node.inputs[i], true);
  }
  return key;
}

// ---- Lone QuantizeLinear / DequantizeLinear ----
namespace {

// oneDNN's reorder multiplies by 1 / scale where ONNX divides by it: a value next to a rounding
// tie may round the other way.
Expected<OpResult> run_qdq(Ctx& c, const OpInputs& x, const std::vector<PostOp>&) {
  const Node& n = x.node;
  auto known = [&](const std::string& name) -> const Tensor* {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] == name && x.has(i)) return x.in[i];
    }
    return nullptr;
  };
  IG_RETURN_IF_ERROR(check_lone_qdq(n, known));
  const Tensor& X = x.at(0);
  IG_ASSIGN_OR_RETURN(Quant p, qdq_quant_of(n, known));
  int64_t axis = n.attr_int("axis", 1);
  if (axis < 0) axis += X.rank();
  if (p.scales.size() > 1 &&
      (axis < 0 || axis >= X.rank() || X.dim(static_cast<int>(axis)) != int64_t(p.scales.size())))
    return invalid_argument("{}: {} scales along axis {} of {}", n.label(), p.scales.size(), axis,
                            X.describe());
  const int ax = static_cast<int>(axis);
  const bool quantize = n.op_type == "QuantizeLinear";
  if (quantize) {
    for (float& s : p.scales) s = 1.0f / s;
  }
  auto r = quantize ? reorder_scaled(c, X, p.type, p.scales, ax, 0, p.zp)
                    : reorder_scaled(c, X, DType::kFloat32, p.scales, ax, p.zp, 0);
  if (r.ok()) r->impl = "reorder " + r->impl;
  return r;
}

Status check_qdq(const Node& n, const Model& m) { return check_lone_qdq(n, initializers_of(m)); }

}  // namespace

const std::vector<OpDef>& quant_ops() {
  static const std::vector<OpDef> kOps = {
      {"", "QuantizeLinear", 10, kMaxOpset, {run_qdq, false}, check_qdq},
      {"", "DequantizeLinear", 10, kMaxOpset, {run_qdq, false}, check_qdq},
  };
  return kOps;
}

}  // namespace ig::onednn

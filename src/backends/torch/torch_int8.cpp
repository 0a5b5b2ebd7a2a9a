#include "backends/torch/torch_int8.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <algorithm>
#include <cmath>

#include "backends/library/window.h"
#include "backends/torch/torch_aten.h"

namespace ig::torchb {

namespace {

// One float scale and at most one zero point of type `zp_type` (u8 activations).
Status per_tensor_u8(const Node& n, const char* what, const TensorLookup& known) {
  if (n.attr_int("block_size", 0) != 0)
    return unsupported("{}: blocked {} quantization is not mapped to PyTorch", n.label(), what);
  const Tensor* s = qdq_operand(n, 1, known);
  const Tensor* z = qdq_operand(n, 2, known);
  if ((s && s->numel() != 1) || (z && z->numel() != 1))
    return unsupported(
        "{}: per-channel {} quantization; PyTorch's quantized operators take "
        "per-tensor quint8 activations",
        n.label(), what);
  if (s && s->dtype() != DType::kFloat32)
    return unsupported("{}: {} scale is {}, not float", n.label(), what, s->describe());
  if (z && z->dtype() != DType::kUInt8)
    return unsupported(
        "{}: {} zero point is {}; PyTorch's quantized conv/linear take quint8 "
        "activations",
        n.label(), what, z->describe());
  return Status::Ok();
}

int64_t channel_axis(const Node& head) {
  if (head.op_type == "Conv") return 0;
  if (head.op_type == "Gemm") return head.attr_int("transB", 0) != 0 ? 0 : 1;
  return 1;  // MatMul with 2-D weights
}

Status check_head(const Node& h, const Tensor* w) {
  if (h.op_type == "Conv") {
    if (w && w->rank() != 4)
      return unsupported("{}: mapped to quantized::conv2d only (weights {})", h.label(),
                         w->describe());
    return Status::Ok();
  }
  if (w && w->rank() != 2)
    return unsupported("{}: quantized::linear needs 2-D weights, not {}", h.label(), w->describe());
  if (h.op_type == "Gemm" && (h.attr_int("transA", 0) != 0 || h.attr_float("alpha", 1) != 1 ||
                              h.attr_float("beta", 1) != 1))
    return unsupported("{}: int8 Gemm is mapped without transA and with alpha = beta = 1",
                       h.label());
  return Status::Ok();
}

Status check_weights(const Node& h, const Node& dw, const TensorLookup& known) {
  const Tensor* w = qdq_operand(dw, 0, known);
  if (w && w->dtype() != DType::kInt8)
    return unsupported("{}: weights are {}; PyTorch's quantized operators take qint8 weights",
                       dw.label(), w->describe());
  if (dw.attr_int("block_size", 0) != 0)
    return unsupported("{}: blocked weight quantization is not mapped to PyTorch", dw.label());
  const Tensor* s = qdq_operand(dw, 1, known);
  if (s && s->dtype() != DType::kFloat32)
    return unsupported("{}: weight scale is {}, not float", dw.label(), s->describe());
  if (s && w && s->numel() != 1) {
    int64_t axis = dw.attr_int("axis", 1);
    if (axis < 0) axis += w->rank();
    const int64_t oc = channel_axis(h);
    if (s->rank() != 1 || axis != oc || s->numel() != w->dim(static_cast<int>(oc)))
      return unsupported(
          "{}: weight scales {} along axis {}; PyTorch quantizes weights per "
          "output channel (axis {})",
          dw.label(), s->describe(), axis, oc);
  }
  const Tensor* z = qdq_operand(dw, 2, known);
  if (z && (z->dtype() != DType::kInt8 || !qdq_all_zero(*z)))
    return unsupported("{}: weight zero point {} is not s8 zero; mapped for symmetric weights",
                       dw.label(), z->describe());
  return Status::Ok();
}

Status check_bias(const Model& m, const QdqGroup& grp, const TensorLookup& known) {
  const Node& h = m.graph.nodes[grp.head];
  if (!grp.b) {
    if (h.op_type == "MatMul" || h.inputs.size() < 3 || h.inputs[2].empty()) return Status::Ok();
    return unsupported("{}: float bias outside QDQ; mapped for an int32 bias (DequantizeLinear)",
                       h.label());
  }
  const Node& db = m.graph.nodes[grp.b->node];
  const Tensor* b = qdq_operand(db, 0, known);
  if (b && b->dtype() != DType::kInt32)
    return unsupported("{}: quantized bias is {}, expected int32", db.label(), b->describe());
  const Tensor* z = qdq_operand(db, 2, known);
  if (z && !qdq_all_zero(*z)) return unsupported("{}: bias zero point is not 0", db.label());
  const Tensor* bs = qdq_operand(db, 1, known);
  const Tensor* xs = qdq_operand(m.graph.nodes[grp.x.node], 1, known);
  const Tensor* ws = qdq_operand(m.graph.nodes[grp.w.node], 1, known);
  if (!bs || !xs || !ws) return Status::Ok();
  if (bs->dtype() != DType::kFloat32 || bs->rank() > 1)
    return unsupported("{}: bias scale {} is not a float scalar or vector", db.label(),
                       bs->describe());
  const int64_t n = std::max(bs->numel(), ws->numel());
  for (int64_t c = 0; c < n; ++c) {
    const double acc = xs->as_double(0) * ws->as_double(ws->numel() == 1 ? 0 : c);
    const double s = bs->as_double(bs->numel() == 1 ? 0 : c);
    if (std::abs(s - acc) > 1e-6 * acc)
      return unsupported(
          "{}: bias scale {} is not x_scale * w_scale ({}) at channel {}; "
          "PyTorch quantizes its bias with x_scale * w_scale",
          db.label(), s, acc, c);
  }
  return Status::Ok();
}

// One call through the dispatcher, boxed: the packed-params classes stay IValues.
c10::IValue call(const char* name, const char* overload, torch::jit::Stack args) {
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
  op.callBoxed(&args);
  return std::move(args.back());
}

Expected<const Tensor*> need(const Node& n, size_t i, const TensorLookup& v, const char* what) {
  const Tensor* t = qdq_operand(n, i, v);
  if (!t) return unsupported("{}: {} is not known", n.label(), what);
  return t;
}

double zero_point(const Node& n, const TensorLookup& v) {
  const Tensor* z = qdq_operand(n, 2, v);
  return z ? z->as_double(0) : 0.0;
}

}  // namespace

Status check_int8_group(const Model& model, const QdqGroup& grp, const TensorLookup& known) {
  const Graph& g = model.graph;
  const Node& h = g.nodes[grp.head];
  const Node& dx = g.nodes[grp.x.node];
  const Node& dw = g.nodes[grp.w.node];
  IG_RETURN_IF_ERROR(check_head(h, qdq_operand(dw, 0, known)));
  IG_RETURN_IF_ERROR(per_tensor_u8(dx, "activation", known));
  if (const Tensor* x = qdq_operand(dx, 0, known); x && x->dtype() != DType::kUInt8)
    return unsupported("{}: activations are {}; PyTorch's quantized conv/linear take quint8",
                       dx.label(), x->describe());
  IG_RETURN_IF_ERROR(check_weights(h, dw, known));
  IG_RETURN_IF_ERROR(check_bias(model, grp, known));
  if (!grp.q)
    return unsupported(
        "{}: no QuantizeLinear reads the {} output; PyTorch's quantized "
        "operators write quint8, not float",
        h.label(), h.op_type);
  const Node& q = g.nodes[*grp.q];
  IG_RETURN_IF_ERROR(per_tensor_u8(q, "output", known));
  const int64_t out_type = q.attr_int("output_dtype", 0);
  if (out_type != 0 && out_type != 2)
    return unsupported("{}: output_dtype {} is not u8 (quint8)", q.label(), out_type);
  return Status::Ok();
}

Int8Plan plan_int8(const Model& model, const std::function<bool(const Node&)>& native) {
  const Graph& g = model.graph;
  Int8Plan out;
  out.groups.group_of.assign(g.nodes.size(), -1);
  NodeGroups& plan = out.groups;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (plan.group_of[i] >= 0 || !native(g.nodes[i])) continue;
    auto grp = find_qdq_group(model, i);
    if (!grp || !check_int8_group(model, *grp, initializers_of(model)).ok()) continue;
    const auto& nodes = grp->nodes;
    if (std::any_of(nodes.begin(), nodes.end(), [&](size_t n) { return plan.group_of[n] >= 0; }))
      continue;
    for (size_t n : nodes) plan.group_of[n] = static_cast<int>(plan.groups.size());
    plan.groups.push_back({nodes});
    out.qdq[nodes.back()] = std::move(*grp);
  }
  return out;
}

Expected<OpResult> run_int8_group(const Model& model, const QdqGroup& grp,
                                  const TensorLookup& values) {
  const Graph& g = model.graph;
  const Node& h = g.nodes[grp.head];
  const Node& dx = g.nodes[grp.x.node];
  const Node& dw = g.nodes[grp.w.node];
  const Node& q = g.nodes[*grp.q];
  IG_RETURN_IF_ERROR(check_int8_group(model, grp, values));
  IG_ASSIGN_OR_RETURN(const Tensor* xs_t, need(dx, 1, values, "activation scale"));
  const double xs = xs_t->as_double(0);
  const int64_t xz = static_cast<int64_t>(zero_point(dx, values));
  // Activations: the integers when the group owns their DequantizeLinear; else its float output
  // quantized again (exact).
  at::Tensor qx;
  if (grp.x.owned) {
    IG_ASSIGN_OR_RETURN(const Tensor* xi, need(dx, 0, values, "activation"));
    IG_ASSIGN_OR_RETURN(at::Tensor a, to_aten(*xi));
    qx = at::_make_per_tensor_quantized_tensor(a, xs, xz);
  } else {
    const Tensor* xd = values(dx.outputs[0]);
    if (!xd) return unsupported("{}: output is not known", dx.label());
    IG_ASSIGN_OR_RETURN(at::Tensor a, to_aten(*xd));
    qx = at::quantize_per_tensor(a.to(at::kFloat), xs, xz, at::kQUInt8);
  }
  // Weights [out, in, ...] (linear: transposed when ONNX holds them [in, out]).
  IG_ASSIGN_OR_RETURN(const Tensor* wi, need(dw, 0, values, "weights"));
  IG_ASSIGN_OR_RETURN(const Tensor* ws_t, need(dw, 1, values, "weight scale"));
  IG_ASSIGN_OR_RETURN(at::Tensor w, to_aten(*wi));
  const bool conv = h.op_type == "Conv";
  if (!conv && channel_axis(h) == 1) w = w.t().contiguous();
  const int64_t oc = w.size(0);
  IG_ASSIGN_OR_RETURN(at::Tensor ws, to_aten(*ws_t));
  ws = ws.to(at::kDouble).reshape({-1});
  const bool per_channel = ws.numel() != 1;
  const at::Tensor qw = per_channel
                            ? at::_make_per_channel_quantized_tensor(
                                  w, ws, at::zeros({oc}, at::TensorOptions().dtype(at::kLong)), 0)
                            : at::_make_per_tensor_quantized_tensor(w, ws.item<double>(), 0);
  c10::optional<at::Tensor> bias;
  if (grp.b) {
    IG_ASSIGN_OR_RETURN(const Tensor* bi, need(g.nodes[grp.b->node], 0, values, "bias"));
    IG_ASSIGN_OR_RETURN(at::Tensor b, to_aten(*bi));
    bias = (b.to(at::kDouble).reshape({-1}) * xs * ws).to(at::kFloat).contiguous();
  }
  IG_ASSIGN_OR_RETURN(const Tensor* ys_t, need(q, 1, values, "output scale"));
  const double ys = ys_t->as_double(0);
  const int64_t yz = static_cast<int64_t>(zero_point(q, values));
  const bool relu = grp.relu.has_value();
  at::Tensor y;
  std::string kernel;
  if (conv) {
    std::vector<int64_t> kernel_dims(w.sizes().begin() + 2, w.sizes().end());
    IG_ASSIGN_OR_RETURN(Window win, window_of(h, shape_of(qx), kernel_dims, false));
    if (!win.symmetric())
      return unsupported("{}: uneven padding; quantized::conv2d pads symmetrically", h.label());
    const int64_t groups = h.attr_int("group", 1);
    c10::IValue packed = call("quantized::conv2d_prepack", "",
                              {qw, bias, win.strides, win.pad_begin, win.dilations, groups});
    kernel = relu ? "quantized::conv2d_relu" : "quantized::conv2d";
    y = call(kernel.c_str(), "new", {qx, packed, ys, yz}).toTensor();
    if (shape_of(y) != Shape{y.size(0), oc, win.out[0], win.out[1]})
      return unsupported("{}: {} gives {}, not ONNX's window", h.label(), kernel,
                         shape_to_string(shape_of(y)));
  } else {
    if (qx.dim() != 2)
      return unsupported("{}: quantized::linear is mapped for 2-D activations, not {}-D", h.label(),
                         qx.dim());
    c10::IValue packed = call("quantized::linear_prepack", "", {qw, bias});
    kernel = relu ? "quantized::linear_relu" : "quantized::linear";
    y = call(kernel.c_str(), "", {qx, packed, ys, yz}).toTensor();
  }
  const std::string engine = c10::toString(at::globalContext().qEngine());
  return one(y.int_repr().contiguous(), fmt::format("torch:{} ({}, {} weights)", kernel, engine,
                                                    per_channel ? "per-channel" : "per-tensor"));
}

}  // namespace ig::torchb

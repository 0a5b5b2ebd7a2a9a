#include "backends/torch/torch_int8.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include "backends/library/qdq_checks.h"
#include "backends/library/window.h"
#include "backends/torch/torch_aten.h"

namespace ig::torchb {

namespace {

constexpr QdqRules kRules{.lib = "PyTorch",
                          .ops = "PyTorch's quantized operators",
                          .data = "u8 (quint8)",
                          .s8_data = false,
                          .conv_rank_min = 4,
                          .conv_rank_max = 4,
                          .conv_dims = "2 (quantized::conv2d)",
                          .needs_q = true,
                          .acc_bias_only = true};

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
  return check_qdq_int8(model, grp, known, kRules);
}

Int8Plan plan_int8(const Model& model, const std::function<bool(const Node&)>& native) {
  return plan_qdq_groups(model, native, check_int8_group);
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
  if (!conv && qdq_channel_axis(h, wi->rank()) == 1) w = w.t().contiguous();
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
  const bool relu = grp.act.has_value();
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

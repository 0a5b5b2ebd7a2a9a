#include <algorithm>
#include <cmath>

#include "backends/xnnpack/xnnpack_int8.h"

namespace ig::xnnpack {

namespace {

// One float scale and at most one u8/s8 zero point.
Status per_tensor(const Node& n, const char* what, const TensorLookup& known) {
  if (n.attr_int("block_size", 0) != 0)
    return unsupported("{}: blocked {} quantization is not mapped to XNNPACK", n.label(), what);
  const Tensor* s = qdq_operand(n, 1, known);
  const Tensor* z = qdq_operand(n, 2, known);
  if ((s && s->numel() != 1) || (z && z->numel() != 1)) {
    return unsupported(
        "{}: per-channel {} scales or zero points; XNNPACK's int8 operators take "
        "one per tensor",
        n.label(), what);
  }
  if (s && s->dtype() != DType::kFloat32)
    return unsupported("{}: {} scale is {}, not float", n.label(), what, s->describe());
  if (z && !qdq_int8_type(z->dtype()))
    return unsupported("{}: {} is {}; XNNPACK's int8 operators take u8 or s8", n.label(), what,
                       z->describe());
  return Status::Ok();
}

Status check_head(const Node& h, const Tensor* w) {
  if (h.op_type == "Conv") {
    if (w && w->rank() != 3 && w->rank() != 4)
      return unsupported("{}: XNNPACK convolves 2-D (and here 1-D) images, weights {}", h.label(),
                         w->describe());
    return Status::Ok();
  }
  if (w && w->rank() != 2)
    return unsupported("{}: int8 {} needs 2-D weights, not {}", h.label(), h.op_type,
                       w->describe());
  if (h.op_type == "Gemm" && (h.attr_int("transA", 0) != 0 || h.attr_float("alpha", 1) != 1 ||
                              h.attr_float("beta", 1) != 1)) {
    return unsupported("{}: int8 Gemm is mapped without transA and with alpha = beta = 1",
                       h.label());
  }
  return Status::Ok();
}

int64_t channel_axis(const Node& head, int64_t w_rank) {
  if (head.op_type == "Conv") return 0;
  if (head.op_type == "Gemm") return head.attr_int("transB", 0) != 0 ? 0 : 1;
  return w_rank - 1;
}

// s8 weights, zero point 0, one scale or one per output channel.
Status check_weights(const Node& h, const Node& dw, const TensorLookup& known) {
  const Tensor* w = qdq_operand(dw, 0, known);
  if (w && w->dtype() != DType::kInt8)
    return unsupported("{}: weights are {}; XNNPACK's qs8/qc8 operators take s8 weights",
                       dw.label(), w->describe());
  if (dw.attr_int("block_size", 0) != 0)
    return unsupported("{}: blocked weight quantization is not mapped to XNNPACK", dw.label());
  const Tensor* s = qdq_operand(dw, 1, known);
  if (s && s->dtype() != DType::kFloat32)
    return unsupported("{}: weight scale is {}, not float", dw.label(), s->describe());
  if (s && w && s->numel() != 1) {
    int64_t axis = dw.attr_int("axis", 1);
    if (axis < 0) axis += w->rank();
    const int64_t oc_axis = channel_axis(h, w->rank());
    if (s->rank() != 1 || axis != oc_axis || s->numel() != w->dim(static_cast<int>(oc_axis))) {
      return unsupported(
          "{}: weight scales {} along axis {}; XNNPACK's qc8 scales per output "
          "channel (axis {})",
          dw.label(), s->describe(), axis, oc_axis);
    }
  }
  const Tensor* z = qdq_operand(dw, 2, known);
  if (z && (z->dtype() != DType::kInt8 || !qdq_all_zero(*z)))
    return unsupported(
        "{}: weight zero point {} is not s8 zero; XNNPACK's int8 operators take "
        "symmetric s8 weights",
        dw.label(), z->describe());
  return Status::Ok();
}

// An int32 bias in the accumulator's units (scale x_scale * w_scale[c], zero point 0): XNNPACK
// adds it to the int32 sums as it is.
Status check_bias(const Model& m, const QdqGroup& grp, const TensorLookup& known) {
  const Node& h = m.graph.nodes[grp.head];
  if (!grp.b) {
    if (h.op_type == "MatMul" || h.inputs.size() < 3 || h.inputs[2].empty()) return Status::Ok();
    return unsupported(
        "{}: float bias; XNNPACK's int8 operators add an int32 bias (a "
        "DequantizeLinear of int32)",
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
          "{}: bias scale {} is not x_scale * w_scale ({}) at channel {}; XNNPACK "
          "adds the int32 bias unscaled",
          db.label(), s, acc, c);
  }
  return Status::Ok();
}

}  // namespace

Status check_int8_group(const Model& model, const QdqGroup& grp, const TensorLookup& known) {
  const Graph& g = model.graph;
  const Node& h = g.nodes[grp.head];
  const Node& dx = g.nodes[grp.x.node];
  const Node& dw = g.nodes[grp.w.node];
  IG_RETURN_IF_ERROR(check_head(h, qdq_operand(dw, 0, known)));
  IG_RETURN_IF_ERROR(per_tensor(dx, "activation", known));
  if (const Tensor* x = qdq_operand(dx, 0, known); x && !qdq_int8_type(x->dtype()))
    return unsupported("{}: activations are {}; XNNPACK's int8 operators take u8 or s8", dx.label(),
                       x->describe());
  IG_RETURN_IF_ERROR(check_weights(h, dw, known));
  IG_RETURN_IF_ERROR(check_bias(model, grp, known));
  if (!grp.q) {
    return unsupported(
        "{}: no QuantizeLinear reads the {} output; XNNPACK's int8 operators "
        "write u8/s8 (requantized), not float",
        h.label(), h.op_type);
  }
  const Node& q = g.nodes[*grp.q];
  IG_RETURN_IF_ERROR(per_tensor(q, "output", known));
  const int64_t out_type = q.attr_int("output_dtype", 0);  // 2 = uint8, 3 = int8
  if (out_type != 0 && out_type != 2 && out_type != 3)
    return unsupported("{}: output_dtype {} is not u8 or s8", q.label(), out_type);
  return Status::Ok();
}

Int8Plan plan_int8(const Model& model, const std::function<bool(const Node&)>& native) {
  const Graph& g = model.graph;
  Int8Plan out;
  out.groups.group_of.assign(g.nodes.size(), -1);
  const bool quantized = std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) {
    return n.domain.empty() && n.op_type == "DequantizeLinear";
  });
  if (!quantized) return out;
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

}  // namespace ig::xnnpack

#include "backends/library/qdq_checks.h"

#include <algorithm>
#include <cmath>

namespace ig {

namespace {

// One float scale and at most one zero point of the types the library takes.
Status per_tensor(const Node& n, const char* what, const TensorLookup& known, const QdqRules& r) {
  if (n.attr_int("block_size", 0) != 0)
    return unsupported("{}: blocked {} quantization is not mapped to {}", n.label(), what, r.lib);
  const Tensor* s = qdq_operand(n, 1, known);
  const Tensor* z = qdq_operand(n, 2, known);
  if ((s && s->numel() != 1) || (z && z->numel() != 1)) {
    return unsupported("{}: per-channel {} scales or zero points; {} take one per tensor",
                       n.label(), what, r.ops);
  }
  if (s && s->dtype() != DType::kFloat32)
    return unsupported("{}: {} scale is {}, not float", n.label(), what, s->describe());
  if (z && (r.s8_data ? !qdq_int8_type(z->dtype()) : z->dtype() != DType::kUInt8))
    return unsupported("{}: {} zero point is {}; {} take {}", n.label(), what, z->describe(), r.ops,
                       r.data);
  return Status::Ok();
}

Status check_head(const Node& h, const Tensor* w, const QdqRules& r) {
  if (h.op_type == "Conv") {
    if (w && (w->rank() < r.conv_rank_min || w->rank() > r.conv_rank_max))
      return unsupported("{}: weights {}; {} convolve {} spatial dims", h.label(), w->describe(),
                         r.ops, r.conv_dims);
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

// s8 weights, zero point 0, one scale or one per output channel.
Status check_weights(const Node& h, const Node& dw, const TensorLookup& known, const QdqRules& r) {
  const Tensor* w = qdq_operand(dw, 0, known);
  if (w && w->dtype() != DType::kInt8)
    return unsupported("{}: weights are {}; {} take s8 weights", dw.label(), w->describe(), r.ops);
  if (dw.attr_int("block_size", 0) != 0)
    return unsupported("{}: blocked weight quantization is not mapped to {}", dw.label(), r.lib);
  const Tensor* s = qdq_operand(dw, 1, known);
  if (s && s->dtype() != DType::kFloat32)
    return unsupported("{}: weight scale is {}, not float", dw.label(), s->describe());
  if (s && w && s->numel() != 1) {
    int64_t axis = dw.attr_int("axis", 1);
    if (axis < 0) axis += w->rank();
    const int64_t oc = qdq_channel_axis(h, w->rank());
    if (s->rank() != 1 || axis != oc || s->numel() != w->dim(static_cast<int>(oc))) {
      return unsupported(
          "{}: weight scales {} along axis {}; {} take one per tensor or one per output "
          "channel (axis {})",
          dw.label(), s->describe(), axis, r.ops, oc);
    }
  }
  const Tensor* z = qdq_operand(dw, 2, known);
  if (z && (z->dtype() != DType::kInt8 || !qdq_all_zero(*z))) {
    return unsupported("{}: weight zero point {} is not s8 zero; {} take symmetric s8 weights",
                       dw.label(), z->describe(), r.ops);
  }
  return Status::Ok();
}

Status check_bias(const Model& m, const QdqGroup& grp, const TensorLookup& known,
                  const QdqRules& r) {
  const Node& h = m.graph.nodes[grp.head];
  if (!grp.b) {
    if (r.acc_bias_only) {
      if (h.op_type == "MatMul" || h.inputs.size() < 3 || h.inputs[2].empty()) return Status::Ok();
      return unsupported("{}: float bias; {} add an int32 bias (a DequantizeLinear of int32)",
                         h.label(), r.ops);
    }
    if (const Tensor* b = qdq_operand(h, 2, known);
        b && h.op_type != "MatMul" && b->dtype() != DType::kFloat32) {
      return unsupported("{}: bias is {}, expected float or a DequantizeLinear of int32", h.label(),
                         b->describe());
    }
    return Status::Ok();
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
  // Checked once all three scales are known when compared, else once its own is.
  if (!bs || (r.acc_bias_only && (!xs || !ws))) return Status::Ok();
  if (bs->dtype() != DType::kFloat32 || bs->rank() > 1)
    return unsupported("{}: bias scale {} is not a float scalar or vector", db.label(),
                       bs->describe());
  if (!r.acc_bias_only) return Status::Ok();
  const int64_t n = std::max(bs->numel(), ws->numel());
  for (int64_t c = 0; c < n; ++c) {
    const double acc = xs->as_double(0) * ws->as_double(ws->numel() == 1 ? 0 : c);
    const double s = bs->as_double(bs->numel() == 1 ? 0 : c);
    if (std::abs(s - acc) > 1e-6 * acc) {
      return unsupported(
          "{}: bias scale {} is not x_scale * w_scale ({}) at channel {}; {} take the int32 "
          "bias in those units",
          db.label(), s, acc, c, r.ops);
    }
  }
  return Status::Ok();
}

}  // namespace

int64_t qdq_channel_axis(const Node& head, int64_t w_rank) {
  if (head.op_type == "Conv") return 0;
  if (head.op_type == "Gemm") return head.attr_int("transB", 0) != 0 ? 0 : 1;
  return w_rank - 1;
}

Status check_qdq_int8(const Model& model, const QdqGroup& grp, const TensorLookup& known,
                      const QdqRules& r) {
  const Graph& g = model.graph;
  const Node& h = g.nodes[grp.head];
  const Node& dx = g.nodes[grp.x.node];
  const Node& dw = g.nodes[grp.w.node];
  IG_RETURN_IF_ERROR(check_head(h, qdq_operand(dw, 0, known), r));
  IG_RETURN_IF_ERROR(per_tensor(dx, "activation", known, r));
  if (const Tensor* x = qdq_operand(dx, 0, known);
      x && (r.s8_data ? !qdq_int8_type(x->dtype()) : x->dtype() != DType::kUInt8)) {
    return unsupported("{}: activations are {}; {} take {}", dx.label(), x->describe(), r.ops,
                       r.data);
  }
  IG_RETURN_IF_ERROR(check_weights(h, dw, known, r));
  IG_RETURN_IF_ERROR(check_bias(model, grp, known, r));
  if (!grp.q) {
    if (!r.needs_q) return Status::Ok();
    return unsupported("{}: no QuantizeLinear reads the {} output; {} write {}, not float",
                       h.label(), h.op_type, r.ops, r.data);
  }
  const Node& q = g.nodes[*grp.q];
  IG_RETURN_IF_ERROR(per_tensor(q, "output", known, r));
  const int64_t out_type = q.attr_int("output_dtype", 0);  // 2 = uint8, 3 = int8
  if (out_type != 0 && out_type != 2 && (!r.s8_data || out_type != 3))
    return unsupported("{}: output_dtype {} is not {}", q.label(), out_type, r.data);
  return Status::Ok();
}

QdqPlan plan_qdq_groups(const Model& model, const std::function<bool(const Node&)>& native,
                        const QdqCheck& check) {
  const Graph& g = model.graph;
  QdqPlan out;
  out.groups.group_of.assign(g.nodes.size(), -1);
  const bool quantized = std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) {
    return n.domain.empty() && n.op_type == "DequantizeLinear";
  });
  if (!quantized) return out;
  NodeGroups& plan = out.groups;
  const QdqGraphIndex index(g);
  const TensorLookup known = initializers_of(model);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (plan.group_of[i] >= 0 || !native(g.nodes[i])) continue;
    auto grp = find_library_qdq_group(index, i);
    if (!grp || !check(model, *grp, known).ok()) continue;
    const auto& nodes = grp->nodes;
    if (std::any_of(nodes.begin(), nodes.end(), [&](size_t n) { return plan.group_of[n] >= 0; }))
      continue;
    for (size_t n : nodes) plan.group_of[n] = static_cast<int>(plan.groups.size());
    plan.groups.push_back({nodes});
    out.qdq[nodes.back()] = std::move(*grp);
  }
  return out;
}

bool QdqMembership::in_group(const Node& node, const Model& model,
                             const std::function<bool(const Node&)>& native,
                             const QdqCheck& check) {
  const auto& nodes = model.graph.nodes;
  if (node.index >= nodes.size() || &nodes[node.index] != &node) return false;
  if (nodes_ != nodes.data() || count_ != nodes.size()) {
    // Quantize and dequantize nodes are never heads: asking `native` about them could ask back.
    group_of_ =
        plan_qdq_groups(
            model,
            [&](const Node& n) {
              return n.op_type != "QuantizeLinear" && n.op_type != "DequantizeLinear" && native(n);
            },
            check)
            .groups.group_of;
    nodes_ = nodes.data();
    count_ = nodes.size();
  }
  return group_of_[node.index] >= 0;
}

Expected<const Tensor*> qdq_value(const TensorLookup& values, const std::string& name) {
  const Tensor* t = values(name);
  if (!t) return internal_error("int8 group: value '{}' is not available", name);
  return t;
}

Expected<QdqQuant> qdq_quant_of(const Node& n, const TensorLookup& values) {
  QdqQuant q;
  if (n.inputs.size() < 2) return invalid_argument("{}: no scale input", n.label());
  IG_ASSIGN_OR_RETURN(const Tensor* s, qdq_value(values, n.inputs[1]));
  if (s->dtype() != DType::kFloat32 || s->numel() < 1)
    return unsupported("{}: scale {} is not float", n.label(), s->describe());
  q.scales.assign(s->data<float>(), s->data<float>() + s->numel());
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    IG_ASSIGN_OR_RETURN(const Tensor* z, qdq_value(values, n.inputs[2]));
    q.type = z->dtype();
    if (z->numel() > 0) q.zp = static_cast<int32_t>(z->as_double(0));
  } else if (n.attr_int("output_dtype", 0) == 3) {
    q.type = DType::kInt8;
  }
  return q;
}

Expected<QdqGroupOperands> qdq_group_operands(const Model& model, const QdqGroup& grp,
                                              const TensorLookup& values) {
  const Graph& g = model.graph;
  const Node& head = g.nodes[grp.head];
  const Node& dx = g.nodes[grp.x.node];
  const Node& dw = g.nodes[grp.w.node];
  IG_ASSIGN_OR_RETURN(QdqQuant x, qdq_quant_of(dx, values));
  IG_ASSIGN_OR_RETURN(QdqQuant w, qdq_quant_of(dw, values));
  return QdqGroupOperands{head,         dx,           dw,
                          std::move(x), std::move(w), static_cast<int>(qdq_channel_axis(head, 2))};
}

}  // namespace ig

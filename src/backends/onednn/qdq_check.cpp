#include "backends/onednn/qdq_check.h"

#include <algorithm>

namespace ig::onednn {

namespace {

bool int8_type(DType t) { return qdq_int8_type(t); }

const Tensor* input_of(const Node& n, size_t i, const TensorLookup& known) {
  return qdq_operand(n, i, known);
}

// Ok for a per-tensor scale (and zero point) of the types an int8 primitive takes.
Status per_tensor(const Node& n, const char* what, const TensorLookup& known) {
  if (n.attr_int("block_size", 0) != 0)
    return unsupported("{}: blocked {} quantization is not mapped to oneDNN", n.label(), what);
  const Tensor* s = input_of(n, 1, known);
  const Tensor* z = input_of(n, 2, known);
  if ((s && s->numel() != 1) || (z && z->numel() != 1)) {
    return unsupported(
        "{}: per-channel {} scales or zero points; oneDNN's int8 kernels take one "
        "per tensor",
        n.label(), what);
  }
  if (s && s->dtype() != DType::kFloat32)
    return unsupported("{}: {} scale is {}, not float", n.label(), what, s->describe());
  if (z && !int8_type(z->dtype()))
    return unsupported("{}: {} is {}; oneDNN's int8 kernels take u8 or s8", n.label(), what,
                       z->describe());
  return Status::Ok();
}

int64_t channel_axis(const Node& head, int64_t w_rank) {
  if (head.op_type == "Conv") return 0;
  if (head.op_type == "Gemm") return head.attr_int("transB", 0) != 0 ? 0 : 1;
  return w_rank - 1;
}

// Weights: s8, scales per tensor or per output channel, zero point 0.
Status check_weights(const Node& head, const Node& dw, const TensorLookup& known) {
  const Tensor* w = input_of(dw, 0, known);
  if (w && w->dtype() != DType::kInt8) {
    return unsupported("{}: weights are {}; oneDNN's int8 kernels take s8 weights", dw.label(),
                       w->describe());
  }
  if (w && head.op_type == "Conv" && (w->rank() < 3 || w->rank() > 5))
    return unsupported("{}: oneDNN int8 convolution takes 1 to 3 spatial dims", head.label());
  if (w && head.op_type != "Conv" && w->rank() != 2)
    return unsupported("{}: int8 {} needs 2-D constant weights", head.label(), head.op_type);
  if (dw.attr_int("block_size", 0) != 0)
    return unsupported("{}: blocked weight quantization is not mapped to oneDNN", dw.label());
  const Tensor* s = input_of(dw, 1, known);
  if (s && s->dtype() != DType::kFloat32)
    return unsupported("{}: weight scale is {}, not float", dw.label(), s->describe());
  if (s && w && s->numel() != 1) {
    int64_t axis = dw.attr_int("axis", 1);
    if (axis < 0) axis += w->rank();
    const int64_t oc_axis = channel_axis(head, w->rank());
    if (s->rank() != 1 || axis != oc_axis || s->numel() != w->dim(static_cast<int>(oc_axis))) {
      return unsupported(
          "{}: weight scales {} along axis {}; oneDNN scales per output channel "
          "(axis {}) or per tensor",
          dw.label(), s->describe(), axis, oc_axis);
    }
  }
  const Tensor* z = input_of(dw, 2, known);
  if (z && (z->dtype() != DType::kInt8 || !qdq_all_zero(*z))) {
    return unsupported(
        "{}: weight zero point {} is not s8 zero; oneDNN's int8 kernels take "
        "symmetric s8 weights",
        dw.label(), z->describe());
  }
  return Status::Ok();
}

Status check_bias(const Node& db, const TensorLookup& known) {
  const Tensor* b = input_of(db, 0, known);
  if (b && b->dtype() != DType::kInt32)
    return unsupported("{}: quantized bias is {}, expected int32", db.label(), b->describe());
  const Tensor* z = input_of(db, 2, known);
  if (z && !qdq_all_zero(*z)) return unsupported("{}: bias zero point is not 0", db.label());
  const Tensor* s = input_of(db, 1, known);
  if (s && (s->dtype() != DType::kFloat32 || s->rank() > 1))
    return unsupported("{}: bias scale {} is not a float scalar or vector", db.label(),
                       s->describe());
  return Status::Ok();
}

Status check_head(const Node& h) {
  if (h.op_type != "Gemm") return Status::Ok();
  if (h.attr_int("transA", 0) != 0 || h.attr_float("alpha", 1) != 1 ||
      h.attr_float("beta", 1) != 1) {
    return unsupported("{}: int8 Gemm is mapped without transA and with alpha = beta = 1",
                       h.label());
  }
  return Status::Ok();
}

}  // namespace

Expected<std::optional<QdqGroup>> qdq_group_at(const Model& model, size_t head,
                                               const TensorLookup& known) {
  std::optional<QdqGroup> grp = find_qdq_group(model, head);
  if (grp) IG_RETURN_IF_ERROR(check_qdq_group(model, *grp, known));
  return Expected<std::optional<QdqGroup>>(std::move(grp));
}

Status check_qdq_group(const Model& model, const QdqGroup& grp, const TensorLookup& known) {
  const Graph& g = model.graph;
  const Node& h = g.nodes[grp.head];
  IG_RETURN_IF_ERROR(check_head(h));
  const Node& dx = g.nodes[grp.x.node];
  IG_RETURN_IF_ERROR(per_tensor(dx, "activation", known));
  if (const Tensor* x = input_of(dx, 0, known); x && !int8_type(x->dtype())) {
    return unsupported("{}: activations are {}; oneDNN's int8 kernels take u8 or s8", dx.label(),
                       x->describe());
  }
  IG_RETURN_IF_ERROR(check_weights(h, g.nodes[grp.w.node], known));
  if (grp.b) {
    IG_RETURN_IF_ERROR(check_bias(g.nodes[grp.b->node], known));
  } else if (const Tensor* b = input_of(h, 2, known);
             b && h.op_type != "MatMul" && b->dtype() != DType::kFloat32) {
    return unsupported("{}: bias is {}, expected float or a DequantizeLinear of int32", h.label(),
                       b->describe());
  }
  if (grp.q) {
    const Node& q = g.nodes[*grp.q];
    IG_RETURN_IF_ERROR(per_tensor(q, "output", known));
    const int64_t out_type = q.attr_int("output_dtype", 0);  // 2 = uint8, 3 = int8
    if (out_type != 0 && out_type != 2 && out_type != 3)
      return unsupported("{}: output_dtype {} is not u8 or s8", q.label(), out_type);
  }
  return Status::Ok();
}

Status check_lone_qdq(const Node& n, const TensorLookup& known) {
  const bool q = n.op_type == "QuantizeLinear";
  auto refuse = [&](const std::string& why) {
    return unsupported(
        "{}: {} outside a Conv/Gemm/MatMul QDQ group runs on oneDNN only as a "
        "reorder (u8/s8, per-tensor or per-axis scales, one zero point): {}",
        n.label(), n.op_type, why);
  };
  if (n.attr_int("block_size", 0) != 0) return refuse("blocked quantization (block_size)");
  const int64_t out_type = n.attr_int("output_dtype", 0);
  if (q && out_type != 0 && out_type != 2 && out_type != 3)
    return refuse(fmt::format("output_dtype {}", out_type));
  if (const Tensor* s = input_of(n, 1, known);
      s && (s->dtype() != DType::kFloat32 || s->rank() > 1)) {
    return refuse("scale " + s->describe());
  }
  const Tensor* z = input_of(n, 2, known);
  const Tensor* x = input_of(n, 0, known);
  const Tensor* ints = q ? z : (x ? x : z);
  if (ints && !int8_type(ints->dtype()) && (q || ints->dtype() != DType::kInt32))
    return refuse(fmt::format("{} values", dtype_name(ints->dtype())));
  if (q && x && x->dtype() != DType::kFloat32) return refuse("input " + x->describe());
  if (z && !qdq_uniform(*z)) return refuse("zero points differ along the axis");
  return Status::Ok();
}

}  // namespace ig::onednn

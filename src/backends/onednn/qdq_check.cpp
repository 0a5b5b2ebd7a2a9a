#include "backends/onednn/qdq_check.h"

#include "backends/library/qdq_checks.h"

namespace ig::onednn {

namespace {

constexpr QdqRules kRules{.lib = "oneDNN",
                          .ops = "oneDNN's int8 kernels",
                          .data = "u8 or s8",
                          .s8_data = true,
                          .conv_rank_min = 3,
                          .conv_rank_max = 5,
                          .conv_dims = "1 to 3"};

}  // namespace

Expected<std::optional<QdqGroup>> qdq_group_at(const Model& model, size_t head,
                                               const TensorLookup& known) {
  std::optional<QdqGroup> grp = find_library_qdq_group(model, head);
  if (grp) IG_RETURN_IF_ERROR(check_qdq_group(model, *grp, known));
  return Expected<std::optional<QdqGroup>>(std::move(grp));
}

Status check_qdq_group(const Model& model, const QdqGroup& grp, const TensorLookup& known) {
  return check_qdq_int8(model, grp, known, kRules);
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
  if (const Tensor* s = qdq_operand(n, 1, known);
      s && (s->dtype() != DType::kFloat32 || s->rank() > 1)) {
    return refuse("scale " + s->describe());
  }
  const Tensor* z = qdq_operand(n, 2, known);
  const Tensor* x = qdq_operand(n, 0, known);
  const Tensor* ints = q ? z : (x ? x : z);
  if (ints && !qdq_int8_type(ints->dtype()) && (q || ints->dtype() != DType::kInt32))
    return refuse(fmt::format("{} values", dtype_name(ints->dtype())));
  if (q && x && x->dtype() != DType::kFloat32) return refuse("input " + x->describe());
  if (z && !qdq_uniform(*z)) return refuse("zero points differ along the axis");
  return Status::Ok();
}

}  // namespace ig::onednn

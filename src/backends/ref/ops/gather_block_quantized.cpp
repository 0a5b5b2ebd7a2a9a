// GatherBlockQuantized (com.microsoft), as ONNX Runtime's contrib schema defines it for the
// quantized embedding tables its GenAI builder writes: data is uint8 [rows, bytes], each byte one
// 8-bit code or two 4-bit codes (low nibble first), quantized in blocks of block_size along the
// last axis; scales [rows, ceil(columns / block_size)]; zero points (optional) uint8, packed like
// data, else 2^(bits - 1). Output = (code - zero point) * scale of the rows `indices` names:
// indices.shape + [columns], in the scales' type. Data of the int4/uint4 types holds one value an
// element ([rows, columns]), zero points (optional) of the same type, else 0, as ONNX Runtime
// 1.31 reads them (checked against it: tests/backends/ref/ort_contrib_spec.py).
// Refused per node: gather or quantize axes other than the first and the last of 2-D data.
#include "backends/ref/nn_util.h"

namespace ig {
namespace {

Status gather_block_quantized(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const Tensor& scales = ctx.input(2);
  const Tensor* zp = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  const int64_t bits = ctx.node.attr_int("bits", 4);
  const int64_t block = ctx.node.attr_int("block_size", 128);
  const bool narrow = data.dtype() == DType::kInt4 || data.dtype() == DType::kUInt4;
  if ((data.dtype() != DType::kUInt8 && !narrow) || data.rank() != 2)
    return ctx.unsupported_here(
        "data {} (uint8 [rows, bytes], int4 or uint4 [rows, columns] are "
        "followed)",
        data.describe());
  if (narrow && bits != 4) return ctx.fail("bits {} with {} data", bits, data.describe());
  if (ctx.node.attr_int("gather_axis", 0) != 0 ||
      (ctx.node.attr_int("quantize_axis", 1) != 1 && ctx.node.attr_int("quantize_axis", 1) != -1))
    return ctx.unsupported_here("gather_axis or quantize_axis other than 0 and the last");
  if (bits != 4 && bits != 8) return ctx.fail("bits {} is not 4 or 8", bits);
  IG_RETURN_IF_ERROR(expect_quant_block_size(ctx, block));
  if (!is_integer(indices.dtype()))
    return ctx.fail("indices {} must be integers", indices.describe());
  const int64_t rows = data.dim(0), per_byte = narrow ? 1 : 8 / bits, cols = data.dim(1) * per_byte;
  const int64_t blocks = (cols + block - 1) / block;
  if (!is_float(scales.dtype()) || scales.numel() != rows * blocks)
    return ctx.fail("scales {} must be floating [{}, {}]", scales.describe(), rows, blocks);
  const int64_t zp_row = (blocks + per_byte - 1) / per_byte;
  if (zp &&
      (zp->dtype() != (narrow ? data.dtype() : DType::kUInt8) || zp->numel() != rows * zp_row))
    return ctx.fail("zero_points {} must be {} like data: [{}, {}]", zp->describe(),
                    narrow ? dtype_name(data.dtype()) : "uint8 packed", rows, zp_row);
  // The code of row r, column c, and the zero point of its block.
  auto code = [&](int64_t r, int64_t c) -> int64_t {
    if (narrow) return data.as_int64(r * cols + c);
    return packed_code(data.data<uint8_t>() + r * data.dim(1), c, bits);
  };
  auto zero = [&](int64_t r, int64_t blk) -> int64_t {
    if (!zp) return narrow ? 0 : int64_t{1} << (bits - 1);
    if (narrow) return zp->as_int64(r * zp_row + blk);
    return packed_code(zp->data<uint8_t>() + r * zp_row, blk, bits);
  };
  Shape out_shape = indices.shape();
  out_shape.push_back(cols);
  return dispatch_float(scales.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* ps = scales.data<T>();
    T* py = ctx.output(0, scales.dtype(), out_shape).template data<T>();
    for (int64_t i = 0; i < indices.numel(); ++i) {
      int64_t r = indices.as_int64(i);
      if (r < 0) r += rows;
      if (r < 0 || r >= rows)
        return ctx.fail("indices[{}] = {} is outside the {} rows of data", i, indices.as_int64(i),
                        rows);
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t blk = c / block;
        py[i * cols + c] = from_compute<T>(static_cast<C>(code(r, c) - zero(r, blk)) *
                                           to_compute(ps[r * blocks + blk]));
      }
    }
    return Status::Ok();
  });
}

IG_REGISTER_KERNEL("com.microsoft", "GatherBlockQuantized", 1, kMaxOpset, gather_block_quantized);

}  // namespace
}  // namespace ig

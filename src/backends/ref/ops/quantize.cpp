// QuantizeLinear / DequantizeLinear (ai.onnx 10: per-tensor; 13+: per-axis with `axis`; 21+:
// block-wise with `block_size` and 16-bit quantized types) and DynamicQuantizeLinear (11).
// Quantisation: saturate(round_half_even(x / scale) + zero_point); float8/float4 round to
// nearest even. The narrow types (int4, float8, ...) from opset 19/21 (core/narrow_types.h).
#include "backends/ref/nn_util.h"

namespace ig {
namespace {

// Checks scale (input 1) / zero point (input 2) against X and returns the geometry: element i of
// X uses parameter index(i). Per-axis: (i / inner) % count. Block-wise (opset 21): the scale has
// X's shape but ceil(count / block) along the axis, and element i the block of its coordinate
// there.
struct AxisParams {
  int64_t inner = 1, count = 1, block = 0, blocks = 1;
  int64_t index(int64_t i) const {
    if (block == 0) return (i / inner) % count;
    const int64_t along = (i / inner) % count, outer = i / (inner * count);
    return (outer * blocks + along / block) * inner + i % inner;
  }
};

Status check_block_shape(const KernelContext& ctx, const Tensor& x, const Tensor& p, int axis,
                         const AxisParams& a, const char* what) {
  bool fits = p.rank() == x.rank();
  for (int d = 0; fits && d < x.rank(); ++d) fits = p.dim(d) == (d == axis ? a.blocks : x.dim(d));
  if (!fits)
    return ctx.fail("{} {} does not fit X {} in blocks of {} along axis {}", what, p.describe(),
                    x.describe(), a.block, axis);
  return Status::Ok();
}

// ONNX Runtime's com.microsoft QuantizeLinear/DequantizeLinear (version 1), which its quantizer
// writes for int4 and 16-bit types below opset 21: ai.onnx's semantics with per-axis parameters
// (as from opset 13), 16-bit and 4-bit types (as from 21), and no block_size.
int ai_onnx_opset(const KernelContext& ctx) {
  return ctx.node.domain == "com.microsoft" ? 19 : ctx.opset;
}

Expected<AxisParams> axis_params(const KernelContext& ctx, const Tensor& x) {
  AxisParams a;
  const int opset = ai_onnx_opset(ctx);
  const Tensor& scale = ctx.input(1);
  // Opset 23: QuantizeLinear's precision of the division, DequantizeLinear's output type.
  if (ctx.node.attr_int("precision", 0) != 0)
    return ctx.unsupported_here("the precision attribute");
  if (ctx.node.op_type == "DequantizeLinear" && ctx.node.attr_int("output_dtype", 0) != 0 &&
      ctx.node.attr_int("output_dtype", 0) != static_cast<int64_t>(scale.dtype())) {
    return ctx.unsupported_here("output_dtype {} other than the scale's type",
                                ctx.node.attr_int("output_dtype", 0));
  }
  if (ctx.has_input(2) && ctx.input(2).shape() != scale.shape() &&
      !(ctx.input(2).numel() == 1 && scale.numel() == 1)) {
    return ctx.fail("zero point {} and scale {} must have the same shape", ctx.input(2).describe(),
                    scale.describe());
  }
  const int64_t block = opset >= 21 ? ctx.node.attr_int("block_size", 0) : 0;
  if (block < 0) return ctx.fail("block_size {} is negative", block);
  if (block == 0 && scale.numel() == 1 && scale.rank() <= 1) {
    if (ctx.has_input(2)) IG_RETURN_IF_ERROR(expect_qparam(ctx, 2, 0));
    return a;
  }
  if (opset < 13) return ctx.fail("scale {} must be a scalar before opset 13", scale.describe());
  IG_ASSIGN_OR_RETURN(int axis, normalize_axis(ctx, ctx.node.attr_int("axis", 1), x.rank()));
  a.count = x.dim(axis);
  a.inner = shape_numel(Shape(x.shape().begin() + axis + 1, x.shape().end()));
  if (block > 0) {
    a.block = block;
    a.blocks = (a.count + block - 1) / block;
    IG_RETURN_IF_ERROR(check_block_shape(ctx, x, scale, axis, a, "scale"));
    if (ctx.has_input(2))
      IG_RETURN_IF_ERROR(check_block_shape(ctx, x, ctx.input(2), axis, a, "zero point"));
    return a;
  }
  IG_RETURN_IF_ERROR(expect_qparam(ctx, 1, a.count));
  if (ctx.has_input(2)) IG_RETURN_IF_ERROR(expect_qparam(ctx, 2, a.count));
  return a;
}

// QuantizeLinear's output types: 8 bits, and from opset 21 16 bits.
template <typename F>
Status dispatch_quantized(const KernelContext& ctx, DType dt, F&& f) {
  if (dt == DType::kInt16) return f(type_tag<int16_t>{});
  if (dt == DType::kUInt16) return f(type_tag<uint16_t>{});
  if (dt == DType::kInt8 || dt == DType::kUInt8) return dispatch_8bit(dt, std::forward<F>(f));
  return ctx.unsupported_here(
      "the output type {}; the reference kernels quantize to int8, uint8, "
      "int16 or uint16",
      dtype_name(dt));
}

// x / scale in float, then: narrow integers round half to even, add the zero point and
// saturate; narrow floats round to nearest even, saturating unless `saturate` is 0 (float4
// always saturates), with a zero point that is not 0 added first (ONNX's reference adds none
// for float8, whose zero point must be 0).
Status quantize_narrow(KernelContext& ctx, const Tensor& x, const AxisParams& a,
                       const QuantParam& scale, const QuantParam& zp, DType out_type) {
  const bool saturate = ctx.node.attr_int("saturate", 1) != 0;
  uint8_t* py = ctx.output(0, out_type, x.shape()).codes();
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t k = a.index(i);
    const float v = static_cast<float>(x.as_double(i)) / static_cast<float>(scale.at(k));
    if (is_narrow_int(out_type)) {
      py[i] = narrow_int_saturated(out_type, quantize_value<int16_t>(v, zp.int_at(k)));
    } else {
      const double zero = zp.at(k);
      py[i] = narrow_float_code(out_type, zero == 0 ? v : v + zero, saturate);
    }
  }
  return Status::Ok();
}

Status quantize_linear(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(AxisParams a, axis_params(ctx, x));
  IG_RETURN_IF_ERROR(expect_quant_params(ctx, {1}, {{kNoInput, 2, false}}));
  // output_dtype (opset 21) types the output when there is no zero point to.
  const auto asked = static_cast<DType>(ctx.node.attr_int("output_dtype", 0));
  const DType out_type = ctx.has_input(2)             ? ctx.input(2).dtype()
                         : asked != DType::kUndefined ? asked
                                                      : DType::kUInt8;
  if (asked != DType::kUndefined && asked != out_type) {
    return ctx.fail("output_dtype {} differs from the zero point's type {}", dtype_name(asked),
                    dtype_name(out_type));
  }
  const bool sixteen = out_type == DType::kInt16 || out_type == DType::kUInt16;
  if (sixteen && ctx.opset < 21 && ctx.node.domain != "com.microsoft")
    return ctx.fail("a {} output needs opset 21 (opset {})", dtype_name(out_type), ctx.opset);
  QuantParam scale{&ctx.input(1)}, zp{ctx.has_input(2) ? &ctx.input(2) : nullptr};
  if (is_narrow(out_type)) return quantize_narrow(ctx, x, a, scale, zp, out_type);
  return dispatch_quantized(ctx, out_type, [&](auto qtag) {
    using Q = typename decltype(qtag)::type;
    Q* py = ctx.output(0, out_type, x.shape()).template data<Q>();
    // x / scale in float (fp32 tests; an int32 X is converted to float first).
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t k = a.index(i);
      const float v = static_cast<float>(x.as_double(i)) / static_cast<float>(scale.at(k));
      py[i] = quantize_value<Q>(v, zp.int_at(k));
    }
    return Status::Ok();
  });
}

Status dequantize_linear(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(AxisParams a, axis_params(ctx, x));
  IG_RETURN_IF_ERROR(expect_quant_params(ctx, {1}, {{0, 2, false}}));
  const Tensor& scale_t = ctx.input(1);
  QuantParam zp{ctx.has_input(2) ? &ctx.input(2) : nullptr};
  if (!is_integer(x.dtype()) && !is_narrow(x.dtype()))
    return ctx.fail("X must be an integer, float8 or float4 tensor, got {}", x.describe());
  const bool narrow_float = is_narrow_float(x.dtype());
  return dispatch_float(scale_t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* ps = scale_t.data<T>();
    T* py = ctx.output(0, scale_t.dtype(), x.shape()).template data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t k = a.index(i);
      // float8/float4: the difference of two such values, exact in double, rounded once to C.
      const C diff = narrow_float ? static_cast<C>(x.as_double(i) - zp.at(k))
                                  : static_cast<C>(x.as_int64(i) - zp.int_at(k));
      py[i] = from_compute<T>(diff * to_compute(ps[scale_t.numel() == 1 ? 0 : k]));
    }
    return Status::Ok();
  });
}

Status dynamic_quantize_linear(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DType::kFloat32)
    return ctx.unsupported_here("X of type {}", dtype_name(x.dtype()));
  const float* px = x.data<float>();
  // The range always includes 0 so that 0 is exactly representable.
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    lo = std::min(lo, px[i]);
    hi = std::max(hi, px[i]);
  }
  const float scale = (hi - lo) / 255.0f;
  const uint8_t zp = scale == 0 ? uint8_t{0} : quantize_value<uint8_t>((0 - lo) / scale, 0);
  uint8_t* py = ctx.output(0, DType::kUInt8, x.shape()).data<uint8_t>();
  for (int64_t i = 0; i < x.numel(); ++i)
    py[i] = scale == 0 ? zp : quantize_value<uint8_t>(px[i] / scale, zp);
  ctx.output(1, DType::kFloat32, {}).data<float>()[0] = scale;
  ctx.output(2, DType::kUInt8, {}).data<uint8_t>()[0] = zp;
  return Status::Ok();
}

IG_REGISTER_KERNEL("", "QuantizeLinear", 10, kMaxOpset, quantize_linear);
IG_REGISTER_KERNEL("", "DequantizeLinear", 10, kMaxOpset, dequantize_linear);
IG_REGISTER_KERNEL("", "DynamicQuantizeLinear", 11, kMaxOpset, dynamic_quantize_linear);
IG_REGISTER_KERNEL("com.microsoft", "QuantizeLinear", 1, kMaxOpset, quantize_linear);
IG_REGISTER_KERNEL("com.microsoft", "DequantizeLinear", 1, kMaxOpset, dequantize_linear);

}  // namespace
}  // namespace ig

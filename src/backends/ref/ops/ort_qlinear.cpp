// ONNX Runtime's QOperator contrib kernels (com.microsoft), which its quantizer writes in
// QuantFormat.QOperator: QLinearAdd, QLinearMul, QLinearGlobalAveragePool, QGemm and
// QLinearSoftmax. ref follows their documented formulas: dequantize, compute, quantize (round half
// to even, saturate), the arithmetic in float as the operator schemas state it (QGemm: the integer
// kernel of qdq=int). ONNX Runtime's x86 kernels compute some of them in fixed point (QLinearAdd's
// MLAS multipliers and shift), which a tie may round the other way: a library difference, not
// ref's.
#include <cmath>
#include <limits>
#include <type_traits>

#include "backends/ref/elementwise_util.h"
#include "backends/ref/kernel_util.h"
#include "backends/ref/nn_util.h"
#include "backends/ref/qdq_groups.h"
#include "backends/ref/reduce_util.h"

namespace ig {
namespace {

// Input `i` (a scale) as float; input `z` (a zero point) as an integer, 0 when absent.
float scale_at(const KernelContext& ctx, size_t i) {
  return static_cast<float>(ctx.input(i).as_double(0));
}
int32_t zero_point_at(const KernelContext& ctx, size_t z) {
  return ctx.has_input(z) ? static_cast<int32_t>(ctx.input(z).as_int64(0)) : 0;
}

// A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp: C = Q(op(DQ(A), DQ(B))), broadcasting.
template <typename Op>
Status qlinear_binary(KernelContext& ctx, Op&& op) {
  for (size_t i : {1, 2, 4, 5, 6, 7}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, 0));
  IG_RETURN_IF_ERROR(expect_quant_params(ctx, {1, 4, 6}, {{0, 2}, {3, 5}, {kNoInput, 7}}));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(3);
  if (a.dtype() != b.dtype())
    return ctx.fail("A {} and B {} must have one 8-bit type", a.describe(), b.describe());
  const float sa = scale_at(ctx, 1), sb = scale_at(ctx, 4), sc = scale_at(ctx, 6);
  const int32_t za = zero_point_at(ctx, 2), zb = zero_point_at(ctx, 5), zc = zero_point_at(ctx, 7);
  return dispatch_8bit(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_binary_mixed<T, T, T>(ctx, a, b, 0, [&](auto x, auto y) {
      const float va = sa * static_cast<float>(static_cast<int32_t>(x) - za);
      const float vb = sb * static_cast<float>(static_cast<int32_t>(y) - zb);
      return quantize_value<T>(op(va, vb) / sc, zc);
    });
  });
}

Status qlinear_add(KernelContext& ctx) {
  return qlinear_binary(ctx, [](float a, float b) { return a + b; });
}
Status qlinear_mul(KernelContext& ctx) {
  return qlinear_binary(ctx, [](float a, float b) { return a * b; });
}

// The operands of a unary QOperator kernel: X, x_scale, x_zp, y_scale, y_zp (scalars).
struct UnaryQ {
  double xs = 1, ys = 1;
  int32_t xz = 0, yz = 0;
};

Status check_unary_qparams(const KernelContext& ctx) {
  for (size_t i : {1, 2, 3, 4}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, 0));
  return expect_quant_params(ctx, {1, 3}, {{0, 2}, {kNoInput, 4}});
}

// Calls body(px, py, q) with X's data and Y's (shape `out`, the type of y_zero_point, else X's),
// each as its 8-bit type.
template <typename Body>
Status qlinear_unary(KernelContext& ctx, const Shape& out, Body&& body) {
  const Tensor& x = ctx.input(0);
  const UnaryQ q{ctx.input(1).as_double(0), ctx.input(3).as_double(0), zero_point_at(ctx, 2),
                 zero_point_at(ctx, 4)};
  const Tensor& yz = ctx.has_input(4) ? ctx.input(4) : x;
  return dispatch_8bit(x.dtype(), [&](auto xtag) {
    using TX = typename decltype(xtag)::type;
    return dispatch_8bit(yz.dtype(), [&](auto ytag) {
      using TY = typename decltype(ytag)::type;
      body(x.data<TX>(), ctx.output(0, yz.dtype(), out).template data<TY>(), q);
      return Status::Ok();
    });
  });
}

// Y = Q(mean over the spatial dims of DQ(X)); channels_last puts the channels last (NHWC). The
// integer sum is exact; the mean is taken in double and rounded once.
Status qlinear_global_average_pool(KernelContext& ctx) {
  IG_RETURN_IF_ERROR(check_unary_qparams(ctx));
  const Tensor& x = ctx.input(0);
  if (x.rank() < 3) return ctx.fail("X {} needs a batch, channel and spatial dims", x.describe());
  const bool last = ctx.node.attr_int("channels_last", 0) != 0;
  const int64_t n = x.dim(0), c = last ? x.dim(x.rank() - 1) : x.dim(1);
  const int64_t spatial = c > 0 && n > 0 ? x.numel() / (n * c) : 0;
  Shape out_shape(static_cast<size_t>(x.rank()), 1);
  out_shape[0] = n;
  out_shape[last ? out_shape.size() - 1 : 1] = c;
  return qlinear_unary(ctx, out_shape, [&](const auto* px, auto* py, const UnaryQ& q) {
    using TY = std::remove_pointer_t<decltype(py)>;
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ch = 0; ch < c; ++ch) {
        int64_t sum = 0;
        for (int64_t s = 0; s < spatial; ++s)
          sum += px[last ? (b * spatial + s) * c + ch : (b * c + ch) * spatial + s] - q.xz;
        const double mean = spatial > 0 ? static_cast<double>(sum) * q.xs / spatial : 0;
        py[b * c + ch] = quantize_value<TY>(static_cast<float>(mean / q.ys), q.yz);
      }
    }
  });
}

// Y = Q(softmax(DQ(X))) along `axis` (default -1); with the `opset` attribute below 13 (the
// Softmax it replaced) over the dims from `axis` on, as Softmax-1 flattens them. Exponentials and
// sums in double, each output rounded once; the zero point cancels (softmax is shift-invariant).
Status qlinear_softmax(KernelContext& ctx) {
  IG_RETURN_IF_ERROR(check_unary_qparams(ctx));
  const Tensor& x = ctx.input(0);
  if (x.rank() < 1) return ctx.fail("X {} must have at least one dim", x.describe());
  IG_ASSIGN_OR_RETURN(const int axis, normalize_axis(ctx, ctx.node.attr_int("axis", -1), x.rank()));
  const AxisSplit split = split_at_axis(x.shape(), axis, ctx.node.attr_int("opset", 13) < 13);
  return qlinear_unary(ctx, x.shape(), [&](const auto* px, auto* py, const UnaryQ& q) {
    using TY = std::remove_pointer_t<decltype(py)>;
    std::vector<double> e(static_cast<size_t>(split.n));
    for (int64_t o = 0; o < split.outer; ++o) {
      for (int64_t i = 0; i < split.inner; ++i) {
        auto at = [&](int64_t k) { return (o * split.n + k) * split.inner + i; };
        int32_t top = std::numeric_limits<int32_t>::lowest();
        for (int64_t k = 0; k < split.n; ++k) top = std::max<int32_t>(top, px[at(k)]);
        double sum = 0;
        for (int64_t k = 0; k < split.n; ++k)
          sum += e[static_cast<size_t>(k)] =
              std::exp(q.xs * (static_cast<int32_t>(px[at(k)]) - top));
        for (int64_t k = 0; k < split.n; ++k)
          py[at(k)] =
              quantize_value<TY>(static_cast<float>(e[static_cast<size_t>(k)] / sum / q.ys), q.yz);
      }
    }
  });
}

// A, a_scale, a_zp, B, b_scale, b_zp, C (int32 bias), y_scale, y_zp: the qdq=int Gemm kernel
// (qdq_gemm.cpp) on the same operands in its order; float output without y_scale.
Status qgemm(KernelContext& ctx) {
  if (ctx.node.attr_int("transA", 0) != 0)
    return ctx.unsupported_here("transA=1 is not implemented (A is taken as [M, K])");
  if (const float alpha = ctx.node.attr_float("alpha", 1.0f); alpha != 1.0f)
    return ctx.unsupported_here("alpha {} is not implemented (1 only)", alpha);
  constexpr std::array<size_t, 9> kFrom = {0, 1, 2, 3, 4, 5, 7, 8, 6};
  Node kernel = ctx.node;
  kernel.inputs.assign(kFrom.size(), "");
  std::vector<const Value*> inputs(kFrom.size(), nullptr);
  for (size_t i = 0; i < kFrom.size(); ++i) {
    if (!ctx.has_input(kFrom[i])) continue;
    inputs[i] = &ctx.input_value(kFrom[i]);
    kernel.inputs[i] = ctx.node.inputs[kFrom[i]];
  }
  for (size_t i : {2, 5})
    if (!inputs[i]) return ctx.fail("{} is required", i == 2 ? "a_zero_point" : "b_zero_point");
  if (inputs[6] && !inputs[7]) return ctx.fail("y_scale without y_zero_point");
  KernelContext inner(kernel, ctx.opset, std::move(inputs), ctx.numerics, nullptr);
  IG_RETURN_IF_ERROR(run_qdq_gemm_group(inner));
  ctx.set_output_value(0, std::move(inner.outputs()[0]));
  if (!inner.note().empty()) ctx.set_note(inner.note());
  return Status::Ok();
}

IG_REGISTER_KERNEL("com.microsoft", "QLinearAdd", 1, kMaxOpset, qlinear_add);
IG_REGISTER_KERNEL("com.microsoft", "QLinearMul", 1, kMaxOpset, qlinear_mul);
IG_REGISTER_KERNEL("com.microsoft", "QLinearGlobalAveragePool", 1, kMaxOpset,
                   qlinear_global_average_pool);
IG_REGISTER_KERNEL("com.microsoft", "QGemm", 1, kMaxOpset, qgemm);
IG_REGISTER_KERNEL("com.microsoft", "QLinearSoftmax", 1, kMaxOpset, qlinear_softmax);

}  // namespace
}  // namespace ig

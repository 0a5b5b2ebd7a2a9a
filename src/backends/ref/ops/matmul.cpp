// MatMul (ai.onnx 1+; 9/13 only add types), MatMulInteger and QLinearMatMul (10+): numpy matmul
// with batch broadcasting and 1-D operands; each output element is one DotAcc over K in order.
#include "backends/ref/int8_arith.h"
#include "backends/ref/nn_util.h"
#include "backends/ref/numerics/float_gemm.h"

namespace ig {
namespace {

struct MatMulShape {
  int64_t m = 0, k = 0, n = 0;
  Shape batch, a_batch, b_batch, out;
};

Expected<MatMulShape> matmul_shape(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.rank() < 1 || b.rank() < 1) {
    return ctx.fail("operands must have rank >= 1, got A {} and B {}", shape_to_string(a.shape()),
                    shape_to_string(b.shape()));
  }
  MatMulShape s;
  // numpy rules: a 1-D A is a row [1, K], a 1-D B a column [K, 1]; those dims are dropped again.
  s.m = a.rank() == 1 ? 1 : a.dim(-2);
  s.k = a.dim(-1);
  s.n = b.rank() == 1 ? 1 : b.dim(-1);
  const int64_t kb = b.rank() == 1 ? b.dim(0) : b.dim(-2);
  if (kb != s.k) {
    return ctx.fail("inner dimensions differ: A {} and B {}", shape_to_string(a.shape()),
                    shape_to_string(b.shape()));
  }
  if (a.rank() > 2) s.a_batch.assign(a.shape().begin(), a.shape().end() - 2);
  if (b.rank() > 2) s.b_batch.assign(b.shape().begin(), b.shape().end() - 2);
  auto batch = broadcast_shapes({s.a_batch, s.b_batch});
  if (!batch.ok()) return batch.status().with_context(ctx.node.label());
  s.batch = *batch;
  s.out = s.batch;
  if (a.rank() > 1) s.out.push_back(s.m);
  if (b.rank() > 1) s.out.push_back(s.n);
  return s;
}

// out[b, i, j] = sum_k A[b, i, k] * B[b, k, j] in DotAcc<C>; store(out_index, i, j, acc).
template <typename C, typename LoadA, typename LoadB, typename Store>
void matmul_batched(const MatMulShape& s, LoadA&& load_a, LoadB&& load_b, Store&& store) {
  const int64_t a_mat = s.m * s.k, b_mat = s.k * s.n, o_mat = s.m * s.n;
  for_each_broadcast<2>(s.batch, {s.a_batch, s.b_batch},
                        [&](int64_t ob, const std::array<int64_t, 2>& off) {
                          const int64_t a0 = off[0] * a_mat, b0 = off[1] * b_mat, o0 = ob * o_mat;
                          for (int64_t i = 0; i < s.m; ++i) {
                            for (int64_t j = 0; j < s.n; ++j) {
                              DotAcc<C> acc;
                              for (int64_t k = 0; k < s.k; ++k)
                                acc.add(load_a(a0 + i * s.k + k), load_b(b0 + k * s.n + j));
                              store(o0 + i * s.n + j, i, j, acc.value());
                            }
                          }
                        });
}

Status matmul(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.dtype() != b.dtype()) {
    return ctx.fail("A is {} but B is {}", dtype_name(a.dtype()), dtype_name(b.dtype()));
  }
  IG_ASSIGN_OR_RETURN(MatMulShape s, matmul_shape(ctx, a, b));
  if (is_float(a.dtype())) {
    // Floating types: one ordered GEMM per batch matrix, following the platform's numerics.
    return dispatch_float(a.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using C = compute_t<T>;
      Tensor& y = ctx.output(0, a.dtype(), s.out);
      const ComputeView<T> va(a.data<T>(), a.numel()), vb(b.data<T>(), b.numel());
      std::vector<C> out(static_cast<size_t>(s.m * s.n));
      T* py = y.data<T>();
      const int64_t a_mat = s.m * s.k, b_mat = s.k * s.n, o_mat = s.m * s.n;
      for_each_broadcast<2>(
          s.batch, {s.a_batch, s.b_batch}, [&](int64_t ob, const std::array<int64_t, 2>& off) {
            float_gemm<C>(ctx.numerics, s.m, s.n, s.k, va.data() + off[0] * a_mat, s.k, 1,
                          vb.data() + off[1] * b_mat, s.n, out.data(), s.n);
            for (int64_t i = 0; i < o_mat; ++i) {
              py[ob * o_mat + i] = from_compute<T>(out[static_cast<size_t>(i)]);
            }
          });
      return Status::Ok();
    });
  }
  return dispatch_integer(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    Tensor& y = ctx.output(0, a.dtype(), s.out);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* py = y.data<T>();
    matmul_batched<C>(
        s, [&](int64_t i) { return to_compute(pa[i]); },
        [&](int64_t i) { return to_compute(pb[i]); },
        [&](int64_t o, int64_t, int64_t, C acc) { py[o] = from_compute<T>(acc); });
    return Status::Ok();
  });
}

// Integer matmul of zero-point shifted 8-bit operands (inputs ai, bi) into int32.
template <typename Store>
Status matmul_int32(KernelContext& ctx, size_t ai, size_t bi, const MatMulShape& s, QuantParam a_zp,
                    QuantParam b_zp, Store&& store) {
  const Tensor& a = ctx.input(ai);
  const Tensor& b = ctx.input(bi);
  return dispatch_8bit(a.dtype(), [&](auto atag) {
    using TA = typename decltype(atag)::type;
    return dispatch_8bit(b.dtype(), [&](auto btag) {
      using TB = typename decltype(btag)::type;
      const TA* pa = a.data<TA>();
      const TB* pb = b.data<TB>();
      // Zero points are per row of A (index i) and per column of B (index j), or scalars.
      matmul_batched<int32_t>(
          s,
          [&](int64_t i) {
            return static_cast<int32_t>(pa[i]) - static_cast<int32_t>(a_zp.int_at(i / s.k % s.m));
          },
          [&](int64_t i) {
            return static_cast<int32_t>(pb[i]) - static_cast<int32_t>(b_zp.int_at(i % s.n));
          },
          store);
      return Status::Ok();
    });
  });
}

Status matmul_integer(KernelContext& ctx) {
  IG_ASSIGN_OR_RETURN(MatMulShape s, matmul_shape(ctx, ctx.input(0), ctx.input(1)));
  IG_RETURN_IF_ERROR(expect_qparam(ctx, 2, s.m));
  IG_RETURN_IF_ERROR(expect_qparam(ctx, 3, s.n));
  IG_RETURN_IF_ERROR(expect_quant_params(ctx, {}, {{0, 2}, {1, 3}}));
  Tensor& y = ctx.output(0, DType::kInt32, s.out);
  int32_t* py = y.data<int32_t>();
  return matmul_int32(ctx, 0, 1, s, QuantParam{ctx.has_input(2) ? &ctx.input(2) : nullptr},
                      QuantParam{ctx.has_input(3) ? &ctx.input(3) : nullptr},
                      [&](int64_t o, int64_t, int64_t, int32_t acc) { py[o] = acc; });
}

Status qlinear_matmul(KernelContext& ctx) {
  IG_ASSIGN_OR_RETURN(MatMulShape s, matmul_shape(ctx, ctx.input(0), ctx.input(3)));
  for (size_t i : {1, 2}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, s.m));
  for (size_t i : {4, 5}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, s.n));
  for (size_t i : {6, 7}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, 0));
  IG_RETURN_IF_ERROR(expect_quant_params(ctx, {1, 4, 6}, {{0, 2}, {3, 5}, {kNoInput, 7}}));
  const Tensor& y_zp_t = ctx.input(7);
  QuantParam a_scale{&ctx.input(1)}, b_scale{&ctx.input(4)};
  const float y_scale = static_cast<float>(ctx.input(6).as_double(0));
  const int64_t y_zp = y_zp_t.as_int64(0);
  const Numerics::Quant& quant = current_numerics().quant;
  return dispatch_8bit(y_zp_t.dtype(), [&](auto ytag) {
    using TY = typename decltype(ytag)::type;
    Tensor& y = ctx.output(0, y_zp_t.dtype(), s.out);
    TY* py = y.data<TY>();
    return matmul_int32(ctx, 0, 3, s, QuantParam{&ctx.input(2)}, QuantParam{&ctx.input(5)},
                        [&](int64_t o, int64_t i, int64_t j, int32_t acc) {
                          const double as = a_scale.at(i), bs = b_scale.at(j);
                          // The integer knobs' requantization (requant, qround).
                          const Requantizer r(
                              static_cast<float>(as) * static_cast<float>(bs) / y_scale,
                              as * bs / static_cast<double>(y_scale), y_zp, quant);
                          py[o] = r.template apply<TY>(acc);
                        });
  });
}

IG_REGISTER_KERNEL("", "MatMul", 1, kMaxOpset, matmul);
IG_REGISTER_KERNEL("", "MatMulInteger", 10, kMaxOpset, matmul_integer);
IG_REGISTER_KERNEL("", "QLinearMatMul", 10, kMaxOpset, qlinear_matmul);

}  // namespace
}  // namespace ig

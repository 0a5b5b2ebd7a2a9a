// qdq=int's Gemm and MatMul groups (qdq_groups.h): DequantizeLinear'd rows X [..., K] times an
// 8-bit weight W [K, N] (or [N, K] with transB), int32 sums, int32 bias per output channel,
// requantized per channel as the integer kernels of the libraries do, or rescaled to float in a
// group without a QuantizeLinear (int8_arith.h).
#include "backends/ref/int8_arith.h"
#include "backends/ref/qdq_groups.h"

namespace ig {

Status run_qdq_gemm_group(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(3);
  const bool trans_b = ctx.node.attr_int("transB", 0) != 0;
  if (x.rank() < 1 || w.rank() != 2)
    return ctx.fail("X {} and W {}: W must be 2-D", x.describe(), w.describe());
  const int64_t k_size = x.dim(x.rank() - 1);
  const int64_t n_size = trans_b ? w.dim(0) : w.dim(1);
  if ((trans_b ? w.dim(1) : w.dim(0)) != k_size)
    return ctx.fail("X {} and W {} do not multiply", x.describe(), w.describe());
  // No y_scale: a group without a QuantizeLinear, float output (int8_arith.h).
  const bool float_out = !ctx.has_input(6);
  for (size_t i : {1, 2}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, 0));
  if (!float_out)
    for (size_t i : {6, 7}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, 0));
  for (size_t i : {4, 5}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, n_size));
  IG_RETURN_IF_ERROR(float_out
                         ? expect_quant_params(ctx, {1, 4}, {{0, 2}, {3, 5}})
                         : expect_quant_params(ctx, {1, 4, 6}, {{0, 2}, {3, 5}, {kNoInput, 7}}));
  IG_RETURN_IF_ERROR(check_group_bias(ctx, n_size, true));
  const int64_t rows = k_size > 0 ? x.numel() / k_size : 0;
  Shape out_shape(x.shape().begin(), x.shape().end() - 1);
  out_shape.push_back(n_size);

  const Numerics::Quant& quant = current_numerics().quant;
  const auto x_scale = static_cast<float>(ctx.input(1).as_double(0));
  const auto x_zp = static_cast<int32_t>(ctx.input(2).as_int64(0));
  const QuantParam w_scale{&ctx.input(4)}, w_zp{&ctx.input(5)};
  const GroupBias bias(ctx.has_input(8) ? &ctx.input(8) : nullptr, x_scale, w_scale, n_size,
                       weight_factor(quant));
  bool weights_zero_point_0 = true;
  for (int64_t n = 0; n < n_size; ++n) weights_zero_point_0 &= w_zp.int_at(n) == 0;
  // The int32 sums of every row and column, before the bias, handed to store(r, n, acc).
  auto sums = [&](auto&& store) {
    return dispatch_8bit(x.dtype(), [&](auto xtag) {
      using TX = typename decltype(xtag)::type;
      return dispatch_8bit(w.dtype(), [&](auto wtag) {
        using TW = typename decltype(wtag)::type;
        const TX* px = x.data<TX>();
        const TW* pw = w.data<TW>();
        auto w_at = [&](int64_t k, int64_t n) -> int32_t {
          const int32_t v = pw[trans_b ? n * k_size + k : k * n_size + n];
          return quant.half_weights ? halve_weight(v, w_zp.int_at(n)) : v;
        };
        const bool pairs =
            std::is_same_v<TX, uint8_t> && std::is_same_v<TW, int8_t> && weights_zero_point_0;
        const int64_t saturated = gemm_int32_sums(
            rows, k_size, n_size, [&](int64_t r, int64_t k) { return px[r * k_size + k]; }, w_at,
            x_zp, w_zp, pairs, quant, store);
        if (saturated > 0)
          ctx.set_note(fmt::format("madd=sat16: {} pair sums saturated", saturated));
        return Status::Ok();
      });
    });
  };
  if (float_out) {
    const FloatRescale rescale(ctx.node, x_scale, w_scale, n_size);
    float* py = ctx.output(0, DType::kFloat32, out_shape).data<float>();
    return sums([&](int64_t r, int64_t n, int32_t acc) {
      py[r * n_size + n] = bias.is_float() ? rescale.apply(bias.float_sum(acc, n), n)
                                           : rescale.apply(bias.int_sum(acc, n), n);
    });
  }
  const auto y_scale = static_cast<float>(ctx.input(6).as_double(0));
  const Tensor& y_zp_t = ctx.input(7);
  const int64_t y_zp = y_zp_t.as_int64(0);
  std::vector<Requantizer> requant;
  for (int64_t n = 0; n < n_size; ++n) {
    const double ws = w_scale.at(n);
    requant.emplace_back(x_scale * static_cast<float>(ws) / y_scale,
                         static_cast<double>(x_scale) * ws / static_cast<double>(y_scale), y_zp,
                         quant);
  }
  return dispatch_8bit(y_zp_t.dtype(), [&](auto ytag) {
    using TY = typename decltype(ytag)::type;
    TY* py = ctx.output(0, y_zp_t.dtype(), out_shape).template data<TY>();
    const OutputClamp<TY> clamp(ctx.node, y_scale, y_zp);
    return sums([&](int64_t r, int64_t n, int32_t acc) {
      const Requantizer& q = requant[static_cast<size_t>(n)];
      py[r * n_size + n] = clamp(bias.is_float() ? q.template apply<TY>(bias.float_sum(acc, n))
                                                 : q.template apply<TY>(bias.int_sum(acc, n)));
    });
  });
}

}  // namespace ig

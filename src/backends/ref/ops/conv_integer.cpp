// ConvInteger and QLinearConv (ai.onnx 10+): the direct convolution of conv_util.h on zero-point
// shifted 8-bit inputs, accumulated exactly in int32. QLinearConv then requantises per output
// channel: y = saturate(round(acc * x_scale * w_scale[m] / y_scale) + y_zero_point).
#include "backends/ref/int8_arith.h"
#include "backends/ref/qdq_groups.h"

namespace ig {
namespace {

// Runs the integer convolution of X (input xi) and W (input wi) with the given zero points under
// the platform's integer knobs and calls store(out_index, m, int32 acc); notes saturated pairs.
template <typename Store>
Status conv_int32(KernelContext& ctx, size_t xi, size_t wi, const ConvShape& s, QuantParam x_zp,
                  QuantParam w_zp, Store&& store) {
  const Tensor& x = ctx.input(xi);
  const Tensor& w = ctx.input(wi);
  return dispatch_8bit(x.dtype(), [&](auto xtag) {
    using TX = typename decltype(xtag)::type;
    return dispatch_8bit(w.dtype(), [&](auto wtag) {
      using TW = typename decltype(wtag)::type;
      const Numerics::Quant& quant = current_numerics().quant;
      const TW* pw = w.data<TW>();
      std::vector<TW> halved;
      if (quant.half_weights) {
        halved = halve_weights(pw, w.numel(), w_zp, w.numel() / std::max<int64_t>(s.m, 1));
        pw = halved.data();
      }
      const int64_t saturated = conv_int32_sums(
          s, x.data<TX>(), pw, static_cast<int32_t>(x_zp.int_at(0)), w_zp, quant, store);
      if (saturated > 0) ctx.set_note(fmt::format("madd=sat16: {} pair sums saturated", saturated));
      return Status::Ok();
    });
  });
}

Status conv_integer(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  IG_ASSIGN_OR_RETURN(ConvShape s, conv_shape(ctx, x, w));
  IG_RETURN_IF_ERROR(expect_qparam(ctx, 2, 0));
  IG_RETURN_IF_ERROR(expect_qparam(ctx, 3, s.m));
  IG_RETURN_IF_ERROR(expect_quant_params(ctx, {}, {{0, 2}, {1, 3}}));
  QuantParam x_zp{ctx.has_input(2) ? &ctx.input(2) : nullptr};
  QuantParam w_zp{ctx.has_input(3) ? &ctx.input(3) : nullptr};
  Tensor& y = ctx.output(0, DType::kInt32, s.out_shape());
  int32_t* py = y.data<int32_t>();
  const int32_t factor = weight_factor(current_numerics().quant);
  return conv_int32(ctx, 0, 1, s, x_zp, w_zp,
                    [&](int64_t o, int64_t, int32_t acc) { py[o] = acc * factor; });
}

// A qdq=int group without a QuantizeLinear (no y_scale): float output (int8_arith.h).
Status float_output_conv(KernelContext& ctx, const ConvShape& s) {
  for (size_t i : {1, 2}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, 0));
  for (size_t i : {4, 5}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, s.m));
  IG_RETURN_IF_ERROR(expect_quant_params(ctx, {1, 4}, {{0, 2}, {3, 5}}));
  IG_RETURN_IF_ERROR(check_group_bias(ctx, s.m, true));
  const auto x_scale = static_cast<float>(ctx.input(1).as_double(0));
  const QuantParam w_scale{&ctx.input(4)};
  const FloatRescale rescale(ctx.node, x_scale, w_scale, s.m);
  const GroupBias bias(ctx.has_input(8) ? &ctx.input(8) : nullptr, x_scale, w_scale, s.m,
                       weight_factor(current_numerics().quant));
  float* py = ctx.output(0, DType::kFloat32, s.out_shape()).data<float>();
  return conv_int32(ctx, 0, 3, s, QuantParam{&ctx.input(2)}, QuantParam{&ctx.input(5)},
                    [&](int64_t o, int64_t m, int32_t acc) {
                      py[o] = bias.is_float() ? rescale.apply(bias.float_sum(acc, m), m)
                                              : rescale.apply(bias.int_sum(acc, m), m);
                    });
}

// QLinearConv; a qdq=int group node also clamps at its fused Relu's or Clip's bounds.
Status qlinear_conv_impl(KernelContext& ctx, bool group) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(3);
  IG_ASSIGN_OR_RETURN(ConvShape s, conv_shape(ctx, x, w));
  if (group && !ctx.has_input(6)) return float_output_conv(ctx, s);
  for (size_t i : {1, 2, 6, 7}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, 0));
  for (size_t i : {4, 5}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, s.m));
  IG_RETURN_IF_ERROR(expect_quant_params(ctx, {1, 4, 6}, {{0, 2}, {3, 5}, {kNoInput, 7}}));
  IG_RETURN_IF_ERROR(check_group_bias(ctx, s.m, group));
  const Tensor& y_zp_t = ctx.input(7);
  const float x_scale = static_cast<float>(ctx.input(1).as_double(0));
  const float y_scale = static_cast<float>(ctx.input(6).as_double(0));
  QuantParam w_scale{&ctx.input(4)};
  const int64_t y_zp = y_zp_t.as_int64(0);
  const Numerics::Quant& quant = current_numerics().quant;
  std::vector<Requantizer> requant;
  requant.reserve(static_cast<size_t>(s.m));
  for (int64_t m = 0; m < s.m; ++m) {
    const double ws = w_scale.at(m);
    requant.emplace_back(x_scale * static_cast<float>(ws) / y_scale,
                         static_cast<double>(x_scale) * ws / static_cast<double>(y_scale), y_zp,
                         quant);
  }
  const GroupBias bias(ctx.has_input(8) ? &ctx.input(8) : nullptr, x_scale, w_scale, s.m,
                       weight_factor(quant));
  return dispatch_8bit(y_zp_t.dtype(), [&](auto ytag) {
    using TY = typename decltype(ytag)::type;
    Tensor& y = ctx.output(0, y_zp_t.dtype(), s.out_shape());
    TY* py = y.data<TY>();
    const OutputClamp<TY> clamp =
        group ? OutputClamp<TY>(ctx.node, y_scale, y_zp) : OutputClamp<TY>(Node{}, y_scale, y_zp);
    return conv_int32(ctx, 0, 3, s, QuantParam{&ctx.input(2)}, QuantParam{&ctx.input(5)},
                      [&](int64_t o, int64_t m, int32_t acc) {
                        const Requantizer& r = requant[static_cast<size_t>(m)];
                        py[o] = clamp(bias.is_float() ? r.template apply<TY>(bias.float_sum(acc, m))
                                                      : r.template apply<TY>(bias.int_sum(acc, m)));
                      });
  });
}

Status qlinear_conv(KernelContext& ctx) { return qlinear_conv_impl(ctx, false); }

}  // namespace

Status run_qdq_conv_group(KernelContext& ctx) { return qlinear_conv_impl(ctx, true); }

namespace {

IG_REGISTER_KERNEL("", "ConvInteger", 10, kMaxOpset, conv_integer);
IG_REGISTER_KERNEL("", "QLinearConv", 10, kMaxOpset, qlinear_conv);

}  // namespace
}  // namespace ig

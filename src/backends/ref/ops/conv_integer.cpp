// ConvInteger and QLinearConv (ai.onnx 10+): the direct convolution of conv_util.h on zero-point
// shifted 8-bit inputs, accumulated exactly in int32. QLinearConv then requantises per output
// channel: y = saturate(round(acc * x_scale * w_scale[m] / y_scale) + y_zero_point).
#include "backends/ref/conv_util.h"

namespace ig {
namespace {

// Runs the integer convolution of X (input xi) and W (input wi) with the given zero points and
// calls store(out_index, m, int32 acc).
template <typename Store>
Status conv_int32(KernelContext& ctx, size_t xi, size_t wi, const ConvShape& s, QuantParam x_zp,
                  QuantParam w_zp, Store&& store) {
  const Tensor& x = ctx.input(xi);
  const Tensor& w = ctx.input(wi);
  return dispatch_8bit(x.dtype(), [&](auto xtag) {
    using TX = typename decltype(xtag)::type;
    return dispatch_8bit(w.dtype(), [&](auto wtag) {
      using TW = typename decltype(wtag)::type;
      const TX* px = x.data<TX>();
      const TW* pw = w.data<TW>();
      const auto xz = static_cast<int32_t>(x_zp.int_at(0));
      const int64_t w_per_m = w.numel() / std::max<int64_t>(s.m, 1);
      conv_direct<int32_t>(
          s, [&](int64_t i) { return static_cast<int32_t>(px[i]) - xz; },
          [&](int64_t i) {
            return static_cast<int32_t>(pw[i]) - static_cast<int32_t>(w_zp.int_at(i / w_per_m));
          },
          store);
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
  return conv_int32(ctx, 0, 1, s, x_zp, w_zp,
                    [&](int64_t o, int64_t, int32_t acc) { py[o] = acc; });
}

Status qlinear_conv(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(3);
  IG_ASSIGN_OR_RETURN(ConvShape s, conv_shape(ctx, x, w));
  for (size_t i : {1, 2, 6, 7}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, 0));
  for (size_t i : {4, 5}) IG_RETURN_IF_ERROR(expect_qparam(ctx, i, s.m));
  IG_RETURN_IF_ERROR(expect_quant_params(ctx, {1, 4, 6}, {{0, 2}, {3, 5}, {kNoInput, 7}}));
  const Tensor* b = ctx.has_input(8) ? &ctx.input(8) : nullptr;
  if (b != nullptr && (b->dtype() != DType::kInt32 || b->numel() != s.m)) {
    return ctx.fail("bias B {} must be int32[{}]", b->describe(), s.m);
  }
  const Tensor& y_zp_t = ctx.input(7);
  const float x_scale = static_cast<float>(ctx.input(1).as_double(0));
  const float y_scale = static_cast<float>(ctx.input(6).as_double(0));
  QuantParam w_scale{&ctx.input(4)};
  const int64_t y_zp = y_zp_t.as_int64(0);
  return dispatch_8bit(y_zp_t.dtype(), [&](auto ytag) {
    using TY = typename decltype(ytag)::type;
    Tensor& y = ctx.output(0, y_zp_t.dtype(), s.out_shape());
    TY* py = y.data<TY>();
    const int32_t* pb = b != nullptr ? b->data<int32_t>() : nullptr;
    return conv_int32(ctx, 0, 3, s, QuantParam{&ctx.input(2)}, QuantParam{&ctx.input(5)},
                      [&](int64_t o, int64_t m, int32_t acc) {
                        if (pb != nullptr) acc += pb[m];
                        const float scale = x_scale * static_cast<float>(w_scale.at(m)) / y_scale;
                        py[o] = quantize_value<TY>(static_cast<float>(acc) * scale, y_zp);
                      });
  });
}

IG_REGISTER_KERNEL("", "ConvInteger", 10, kMaxOpset, conv_integer);
IG_REGISTER_KERNEL("", "QLinearConv", 10, kMaxOpset, qlinear_conv);

}  // namespace
}  // namespace ig

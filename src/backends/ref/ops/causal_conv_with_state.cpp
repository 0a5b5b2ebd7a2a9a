// CausalConvWithState (ai.onnx 27): a depthwise 1-D convolution over [batch, channels, length]
// whose left context is the carried state (k - 1 positions, zeros when absent) instead of
// padding; present_state is the last k - 1 positions of state and input together. Each output
// is the platform's ordered sum of its k products plus the bias, rounded once to the type; the
// optional SiLU ("silu" or "swish") is x * 1 / (1 + exp(-x)) in compute precision (float32 for
// half types, as the definition computes it), rounded once.
#include "backends/ref/kernel_util.h"
#include "backends/ref/numerics/math.h"
#include "backends/ref/numerics/ordered_sum.h"

namespace ig {
namespace {

Status causal_conv_with_state(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const std::string activation = ctx.node.attr_string("activation", "none");
  if (activation != "none" && activation != "silu" && activation != "swish")
    return ctx.fail("activation '{}' is not none, silu or swish", activation);
  if (x.rank() != 3 || w.rank() != 3 || w.dim(0) != x.dim(1) || w.dim(1) != 1 || w.dim(2) < 1)
    return ctx.fail("input {} must be [batch, channels, length] and weight {} [channels, 1, k]",
                    x.describe(), w.describe());
  const int64_t batch = x.dim(0), channels = x.dim(1), len = x.dim(2), k = w.dim(2);
  const Shape state_shape = {batch, channels, k - 1};
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const Tensor* past = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  if (bias && (bias->rank() != 1 || bias->dim(0) != channels))
    return ctx.fail("bias {} must be [{}]", bias->describe(), channels);
  if (past && past->shape() != state_shape)
    return ctx.fail("past_state {} must be {}", past->describe(), shape_to_string(state_shape));
  for (const Tensor* t : {&w, bias, past})
    if (t && t->dtype() != x.dtype())
      return ctx.fail("{} is not of the input's type {}", t->describe(), dtype_name(x.dtype()));
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* px = x.data<T>();
    const T* pw = w.data<T>();
    const int64_t padded_len = k - 1 + len;
    std::vector<C> padded(static_cast<size_t>(padded_len));
    T* py = ctx.output(0, x.dtype(), x.shape()).data<T>();
    T* pstate = ctx.output_wanted(1) ? ctx.output(1, x.dtype(), state_shape).data<T>() : nullptr;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t row = b * channels + c;
        for (int64_t j = 0; j < padded_len; ++j)
          padded[static_cast<size_t>(j)] =
              j < k - 1 ? (past ? to_compute(past->data<T>()[row * (k - 1) + j]) : C(0))
                        : to_compute(px[row * len + j - (k - 1)]);
        const C b0 = bias ? to_compute(bias->data<T>()[c]) : C(0);
        for (int64_t t = 0; t < len; ++t) {
          const C sum = ordered_sum<C>(ctx.numerics, k, [&](int64_t m) {
            return padded[static_cast<size_t>(t + m)] * to_compute(pw[c * k + m]);
          });
          C y = rounded_to<T>(sum + b0);
          if (activation != "none") y = y * (C(1) / (C(1) + math_exp(-y)));
          py[row * len + t] = from_compute<T>(y);
        }
        if (pstate)
          for (int64_t j = 0; j < k - 1; ++j)
            pstate[row * (k - 1) + j] = from_compute<T>(padded[static_cast<size_t>(len + j)]);
      }
    }
    return Status::Ok();
  });
}

IG_REGISTER_KERNEL("", "CausalConvWithState", 27, kMaxOpset, causal_conv_with_state);

}  // namespace
}  // namespace ig

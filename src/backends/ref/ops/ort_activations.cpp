// ONNX Runtime's fused activations (com.microsoft), as its contrib operator schemas define them:
//  - BiasGelu: Gelu (the erf form) of A + bias;
//  - FastGelu: 0.5 * X * (1 + tanh(sqrt(2/pi) * X + 0.044715 * sqrt(2/pi) * X^3)), X = A (+ bias);
//  - QuickGelu: X * Sigmoid(alpha * X), alpha 1.702 by default.
// bias has one value per element of A's last dimension; the sum is not rounded before the
// activation (a fused kernel keeps it in registers).
#include "backends/ref/elementwise_util.h"
#include "backends/ref/numerics/math.h"

namespace ig {
namespace {

// y = f(a + bias) (bias optional, at input 1).
template <typename F>
Status with_bias(KernelContext& ctx, F&& f) {
  const Tensor& a = ctx.input(0);
  const Tensor* bias = ctx.has_input(1) ? &ctx.input(1) : nullptr;
  if (bias && (bias->dtype() != a.dtype() || a.rank() < 1 || bias->numel() != a.dim(-1))) {
    return ctx.fail("bias {} must be {} with one value per element of the last dimension of {}",
                    bias->describe(), dtype_name(a.dtype()), a.describe());
  }
  return dispatch_float(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pa = a.data<T>();
    const T* pb = bias ? bias->data<T>() : nullptr;
    const int64_t h = a.rank() > 0 ? a.dim(-1) : 1;
    T* py = ctx.output(0, a.dtype(), a.shape()).template data<T>();
    for (int64_t i = 0; i < a.numel(); ++i) {
      auto x = to_compute(pa[i]);
      if (pb) x += to_compute(pb[i % h]);
      py[i] = from_compute<T>(f(x));
    }
    return Status::Ok();
  });
}

Status bias_gelu(KernelContext& ctx) {
  return with_bias(ctx, [](auto x) {
    using C = decltype(x);
    return C(0.5) * x * (C{1} + math_erf(x * C(0.7071067811865476)));  // x / sqrt(2)
  });
}

Status fast_gelu(KernelContext& ctx) {
  return with_bias(ctx, [](auto x) {
    using C = decltype(x);
    const C alpha = C(0.7978845608028654);    // sqrt(2 / pi)
    const C gamma = C(0.035677408136300125);  // 0.044715 * sqrt(2 / pi)
    return C(0.5) * x * (C{1} + math_tanh(alpha * x + gamma * x * x * x));
  });
}

Status quick_gelu(KernelContext& ctx) {
  const float alpha = ctx.node.attr_float("alpha", 1.702f);
  return unary_float(ctx, [&](auto x) {
    using C = decltype(x);
    return x * math_sigmoid(static_cast<C>(alpha) * x);
  });
}

IG_REGISTER_KERNEL("com.microsoft", "BiasGelu", 1, kMaxOpset, bias_gelu);
IG_REGISTER_KERNEL("com.microsoft", "FastGelu", 1, kMaxOpset, fast_gelu);
IG_REGISTER_KERNEL("com.microsoft", "QuickGelu", 1, kMaxOpset, quick_gelu);

}  // namespace
}  // namespace ig

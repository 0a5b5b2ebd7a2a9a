// Pointwise activations: LeakyRelu, Elu, Selu, Celu, Sigmoid, HardSigmoid, HardSwish, Softplus,
// Softsign, Tanh, ThresholdedRelu, Shrink, Mish, Gelu. Float attributes are converted to the
// compute type (float for fp16/bf16/fp32, double for fp64) and each result is rounded once.
// exp, expm1, log1p, tanh and erf follow the `math` knob (numerics/math.h).
#include "backends/ref/elementwise_util.h"
#include "backends/ref/numerics/math.h"

namespace ig {
namespace {

// Clamp to [0, 1] keeping NaN (fmin/fmax would drop it).
template <typename C>
C clamp01(C v) {
  return v < C{0} ? C{0} : (v > C{1} ? C{1} : v);
}

Status leaky_relu(KernelContext& ctx) {
  const float alpha = ctx.node.attr_float("alpha", 0.01f);
  return unary_float(ctx, [&](auto x) {
    using C = decltype(x);
    return x < C{0} ? C(alpha) * x : x;
  });
}

Status elu(KernelContext& ctx) {
  const float alpha = ctx.node.attr_float("alpha", 1.0f);
  return unary_float(ctx, [&](auto x) {
    using C = decltype(x);
    return x < C{0} ? C(alpha) * math_expm1(x) : x;
  });
}

Status selu(KernelContext& ctx) {
  const float alpha = ctx.node.attr_float("alpha", 1.67326319217681884765625f);
  const float gamma = ctx.node.attr_float("gamma", 1.05070102214813232421875f);
  return unary_float(ctx, [&](auto x) {
    using C = decltype(x);
    return x > C{0} ? C(gamma) * x : C(gamma) * (C(alpha) * math_exp(x) - C(alpha));
  });
}

Status celu(KernelContext& ctx) {
  const float alpha = ctx.node.attr_float("alpha", 1.0f);
  if (alpha == 0.0f) return ctx.fail("alpha must not be 0");
  return unary_float(ctx, [&](auto x) {
    using C = decltype(x);
    return x > C{0} ? x : C(alpha) * math_expm1(x / C(alpha));
  });
}

Status sigmoid(KernelContext& ctx) {
  return unary_float(ctx, [](auto x) { return math_sigmoid(x); });
}

Status hard_sigmoid(KernelContext& ctx) {
  const float alpha = ctx.node.attr_float("alpha", 0.2f);
  const float beta = ctx.node.attr_float("beta", 0.5f);
  return unary_float(ctx, [&](auto x) {
    using C = decltype(x);
    return clamp01(C(alpha) * x + C(beta));
  });
}

Status hard_swish(KernelContext& ctx) {
  return unary_float(ctx, [](auto x) {
    using C = decltype(x);
    return x * clamp01(x / C{6} + C(0.5));
  });
}

Status softplus_kernel(KernelContext& ctx) {
  return unary_float(ctx, [](auto x) { return math_softplus(x); });
}

Status softsign(KernelContext& ctx) {
  return unary_float(ctx, [](auto x) { return x / (decltype(x){1} + std::fabs(x)); });
}

Status tanh_kernel(KernelContext& ctx) {
  return unary_float(ctx, [](auto x) { return math_tanh(x); });
}

Status thresholded_relu(KernelContext& ctx) {
  const float alpha = ctx.node.attr_float("alpha", 1.0f);
  return unary_float(ctx, [&](auto x) {
    using C = decltype(x);
    return x > C(alpha) ? x : C{0};
  });
}

// Shrink lists integer types too; those compute in double and truncate back.
Status shrink(KernelContext& ctx) {
  const float lambd = ctx.node.attr_float("lambd", 0.5f);
  const float bias = ctx.node.attr_float("bias", 0.0f);
  return unary_numeric(ctx, [&](auto x) {
    using C = decltype(x);
    using F = std::conditional_t<std::is_integral_v<C>, double, C>;
    const F v = static_cast<F>(x);
    const F r = v < -F(lambd) ? v + F(bias) : (v > F(lambd) ? v - F(bias) : F{0});
    if constexpr (std::is_integral_v<C>) {
      return float_to_int<C>(r);
    } else {
      return r;
    }
  });
}

// Swish (24): X * Sigmoid(alpha * X), alpha cast to X's type as its function body does.
Status swish(KernelContext& ctx) {
  const float alpha = ctx.node.attr_float("alpha", 1.0f);
  return unary_float(ctx, [&](auto x) {
    using C = decltype(x);
    return x * math_sigmoid(static_cast<C>(alpha) * x);
  });
}

// SwiGLU (28): Swish_alpha(A) * B, A and B of one shape (no broadcasting); the Swish is the
// operator's, rounded to the type, then multiplied, as the definition composes them.
Status swiglu(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.shape() != b.shape() || a.dtype() != b.dtype())
    return ctx.fail("A {} and B {} must have one shape and type", a.describe(), b.describe());
  const float alpha = ctx.node.attr_float("alpha", 1.0f);
  return dispatch_float(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* py = ctx.output(0, a.dtype(), a.shape()).template data<T>();
    for (int64_t i = 0; i < a.numel(); ++i) {
      const C x = to_compute(pa[i]);
      const T gate = from_compute<T>(x * math_sigmoid(static_cast<C>(alpha) * x));
      py[i] = from_compute<T>(to_compute(gate) * to_compute(pb[i]));
    }
    return Status::Ok();
  });
}

Status mish(KernelContext& ctx) {
  return unary_float(ctx, [](auto x) { return x * math_tanh(math_softplus(x)); });
}

// Gelu: ai.onnx 20 has approximate = none | tanh; com.microsoft Gelu is always the erf form.
Status gelu(KernelContext& ctx) {
  const std::string approximate =
      ctx.node.domain.empty() ? ctx.node.attr_string("approximate", "none") : "none";
  if (approximate == "tanh") {
    return unary_float(ctx, [](auto x) {
      using C = decltype(x);
      const C k = C(0.7978845608028654);  // sqrt(2 / pi)
      return C(0.5) * x * (C{1} + math_tanh(k * (x + C(0.044715) * x * x * x)));
    });
  }
  if (approximate != "none")
    return ctx.fail("approximate must be 'none' or 'tanh', not '{}'", approximate);
  return unary_float(ctx, [](auto x) {
    using C = decltype(x);
    return C(0.5) * x * (C{1} + math_erf(x * C(0.7071067811865476)));  // x / sqrt(2)
  });
}

// PRelu: the slope broadcasts unidirectionally to X (opset 7+). Before opset 7 a 1-D slope of C
// elements is per channel (axis 1), which exporters of that era relied on.
Status prelu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor slope = ctx.input(1);
  IG_RETURN_IF_ERROR(expect_same_dtype(ctx, x, slope));
  if (ctx.opset < 7 && slope.rank() == 1 && slope.numel() > 1 && x.rank() >= 2 &&
      slope.numel() == x.dim(1)) {
    Shape per_channel(static_cast<size_t>(x.rank() - 1), 1);
    per_channel[0] = slope.numel();
    slope = slope.reshaped(per_channel);
  }
  auto shape = broadcast_shapes({x.shape(), slope.shape()});
  if (!shape.ok() || *shape != x.shape()) {
    return ctx.fail("slope shape {} does not broadcast to input shape {}",
                    shape_to_string(slope.shape()), shape_to_string(x.shape()));
  }
  return dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_binary<T, T>(ctx, x, slope, 0, [](auto v, auto a) {
      using C = decltype(v);
      if constexpr (std::is_unsigned_v<C>) {
        return v;  // never negative
      } else if constexpr (std::is_integral_v<C>) {
        return v < C{0} ? wrapping_mul(a, v) : v;
      } else {
        return v < C{0} ? a * v : v;
      }
    });
  });
}

IG_REGISTER_KERNEL("", "PRelu", 1, kMaxOpset, prelu);
IG_REGISTER_KERNEL("", "LeakyRelu", 1, kMaxOpset, leaky_relu);
IG_REGISTER_KERNEL("", "Elu", 1, kMaxOpset, elu);
IG_REGISTER_KERNEL("", "Selu", 6, kMaxOpset, selu);
IG_REGISTER_KERNEL("", "Celu", 12, kMaxOpset, celu);
IG_REGISTER_KERNEL("", "Sigmoid", 1, kMaxOpset, sigmoid);
IG_REGISTER_KERNEL("", "Swish", 24, kMaxOpset, swish);
IG_REGISTER_KERNEL("", "SwiGLU", 28, kMaxOpset, swiglu);
IG_REGISTER_KERNEL("", "HardSigmoid", 1, kMaxOpset, hard_sigmoid);
IG_REGISTER_KERNEL("", "HardSwish", 14, kMaxOpset, hard_swish);
IG_REGISTER_KERNEL("", "Softplus", 1, kMaxOpset, softplus_kernel);
IG_REGISTER_KERNEL("", "Softsign", 1, kMaxOpset, softsign);
IG_REGISTER_KERNEL("", "Tanh", 1, kMaxOpset, tanh_kernel);
IG_REGISTER_KERNEL("", "ThresholdedRelu", 10, kMaxOpset, thresholded_relu);
IG_REGISTER_KERNEL("", "Shrink", 9, kMaxOpset, shrink);
IG_REGISTER_KERNEL("", "Mish", 18, kMaxOpset, mish);
IG_REGISTER_KERNEL("", "Gelu", 20, kMaxOpset, gelu);
IG_REGISTER_KERNEL("com.microsoft", "Gelu", 1, kMaxOpset, gelu);

}  // namespace
}  // namespace ig

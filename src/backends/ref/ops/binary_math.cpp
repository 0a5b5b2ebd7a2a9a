// Pow (1-6: legacy broadcast attribute; 7: same type; 12+: base and exponent types differ), Mod
// (10+, fmod attribute), BitShift (11+). All with multidirectional broadcasting.
#include "backends/ref/elementwise_util.h"
#include "backends/ref/numerics/math.h"

namespace ig {
namespace {

// Integer power by squaring, wrapping on overflow like fixed-width hardware. A negative exponent
// gives the truncated reciprocal: 1 and -1 stay finite, everything else becomes 0.
template <typename I, typename E>
I int_pow(I base, E exponent) {
  if constexpr (std::is_signed_v<E>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent % 2 == 0) ? I{1} : I{-1};
      return 0;
    }
  }
  I result = 1;
  auto e = static_cast<std::make_unsigned_t<E>>(exponent);
  while (e != 0) {
    if (e & 1u) result = wrapping_mul(result, base);
    base = wrapping_mul(base, base);
    e >>= 1;
  }
  return result;
}

template <typename TA, typename TB>
Status pow_typed(KernelContext& ctx, const Tensor& a, const Tensor& b) {
  return map_binary_mixed<TA, TB, TA>(ctx, a, b, 0, [](auto x, auto y) {
    using CA = decltype(x);
    using CB = decltype(y);
    if constexpr (std::is_floating_point_v<CA>) {
      return math_pow(x, static_cast<CA>(y));  // in the base's compute type, `math` knob
    } else if constexpr (std::is_floating_point_v<CB>) {
      // integer base, float exponent: double result truncated back, as numpy's astype
      return float_to_int<CA>(std::pow(static_cast<double>(x), static_cast<double>(y)));
    } else {
      return int_pow(x, y);
    }
  });
}

Status pow_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  Tensor b = ctx.input(1);
  if (ctx.opset < 12) IG_RETURN_IF_ERROR(expect_same_dtype(ctx, a, b));
  if (ctx.opset < 7) {
    IG_ASSIGN_OR_RETURN(b, legacy_broadcast_rhs(ctx, a, b));
  }
  auto with_exponent = [&](auto ta) {
    using TA = typename decltype(ta)::type;
    return dispatch_numeric(b.dtype(), [&](auto tb) {
      using TB = typename decltype(tb)::type;
      return pow_typed<TA, TB>(ctx, a, b);
    });
  };
  switch (a.dtype()) {  // the base types the spec lists
    case DType::kInt32:
      return with_exponent(type_tag<int32_t>{});
    case DType::kInt64:
      return with_exponent(type_tag<int64_t>{});
    default:
      return dispatch_float(a.dtype(), with_exponent);
  }
}

// Python-style modulo (the result takes the divisor's sign) when fmod = 0, C fmod (the dividend's
// sign) when fmod = 1. Integer division by zero is undefined in ONNX; it yields 0 here.
template <typename C>
C mod_value(C x, C y, bool c_fmod) {
  C r;
  if constexpr (std::is_integral_v<C>) {
    if (y == 0) return 0;
    if constexpr (std::is_signed_v<C>) {
      if (y == -1) return 0;  // avoids INT_MIN % -1 overflow
    }
    r = static_cast<C>(x % y);
    if constexpr (std::is_unsigned_v<C>) return r;
  } else {
    r = std::fmod(x, y);
  }
  if (!c_fmod && r != C{0} && ((r < C{0}) != (y < C{0}))) r = static_cast<C>(r + y);
  if constexpr (std::is_floating_point_v<C>) {
    if (!c_fmod && r == C{0}) r = std::copysign(C{0}, y);  // Mod-28: "the same sign as B"
  }
  return r;
}

Status mod_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  IG_RETURN_IF_ERROR(expect_same_dtype(ctx, a, b));
  const int64_t fmod = ctx.node.attr_int("fmod", 0);
  if (fmod != 0 && fmod != 1) return ctx.fail("fmod must be 0 or 1, not {}", fmod);
  return dispatch_numeric(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return map_binary<T, T>(ctx, a, b, 0,
                            [&](auto x, auto y) { return mod_value(x, y, fmod == 1); });
  });
}

Status bitshift_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  IG_RETURN_IF_ERROR(expect_same_dtype(ctx, a, b));
  const std::string direction = ctx.node.attr_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    return ctx.fail("direction must be LEFT or RIGHT, not '{}'", direction);
  }
  const bool left = direction == "LEFT";
  // Signed types from opset 28: the right shift is arithmetic, the left one drops what passes the
  // sign bit, and an amount that is negative or not below the width leaves the sign's fill only.
  if (!is_integer(a.dtype()) || (dtype_info(a.dtype()).is_signed && ctx.opset < 28)) {
    return ctx.unsupported_here("BitShift of {} (the spec allows unsigned integers only)",
                                dtype_name(a.dtype()));
  }
  return dispatch_integer(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using U = std::make_unsigned_t<T>;
    return map_binary<T, T>(ctx, a, b, 0, [&](T x, T s) {
      const bool negative = x < T{0};  // never for unsigned T
      if (s < T{0} || static_cast<uint64_t>(s) >= sizeof(T) * 8)
        return !left && negative ? static_cast<T>(-1) : T{0};
      if (left) return static_cast<T>(static_cast<U>(x) << s);
      return static_cast<T>(x >> s);  // arithmetic for signed T (C++20, GCC)
    });
  });
}

IG_REGISTER_KERNEL("", "Pow", 1, kMaxOpset, pow_kernel);
IG_REGISTER_KERNEL("", "Mod", 10, kMaxOpset, mod_kernel);
IG_REGISTER_KERNEL("", "BitShift", 11, kMaxOpset, bitshift_kernel);

}  // namespace
}  // namespace ig

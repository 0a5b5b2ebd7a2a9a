// Clip: opsets 1 and 6 take min/max attributes (float types); 11+ take optional scalar inputs of
// the input's type; 12+ add integer types (accepted for every version here). NaN passes through
// under nan=propagate; under nan=ignore it becomes the min bound, or the max bound when only that
// is given (numerics/nan_mode.h). A NaN bound makes every element NaN under nan=propagate, as
// ONNX's reference (np.clip) does, and is no bound under nan=ignore. When min > max every
// element becomes max (min is applied first), as the spec says.
#include <limits>

#include "backends/ref/elementwise_util.h"
#include "backends/ref/numerics/nan_mode.h"

namespace ig {
namespace {

template <typename T>
Status clip_typed(KernelContext& ctx, const Tensor& x) {
  using C = compute_t<T>;
  C lo = std::numeric_limits<C>::lowest();
  C hi = std::numeric_limits<C>::max();
  bool has_lo = false, has_hi = false;
  if (ctx.opset < 11) {
    if constexpr (std::is_floating_point_v<C>) {
      lo = static_cast<C>(ctx.node.attr_float("min", std::numeric_limits<float>::lowest()));
      hi = static_cast<C>(ctx.node.attr_float("max", std::numeric_limits<float>::max()));
      has_lo = ctx.node.attr("min") != nullptr;
      has_hi = ctx.node.attr("max") != nullptr;
    }
  } else {
    for (size_t i = 1; i <= 2; ++i) {
      if (!ctx.has_input(i)) continue;
      const Tensor& bound = ctx.input(i);
      if (bound.dtype() != x.dtype()) {
        return ctx.fail("{} has type {} but the input has type {}", i == 1 ? "min" : "max",
                        dtype_name(bound.dtype()), dtype_name(x.dtype()));
      }
      if (bound.numel() != 1) {
        return ctx.fail("{} must be a scalar, got shape {}", i == 1 ? "min" : "max",
                        shape_to_string(bound.shape()));
      }
      (i == 1 ? lo : hi) = to_compute(bound.data<T>()[0]);
      (i == 1 ? has_lo : has_hi) = true;
    }
  }
  // What NaN becomes under nan=ignore: maxNum(NaN, lo) = lo, then minNum(., hi). Under propagate
  // (or without bounds) the NaN passes with its payload.
  const bool ignore = current_numerics().nan == NanMode::kIgnore;
  const bool nan_to_bound = ignore && (has_lo || has_hi);
  const C nan_result = has_lo ? (lo > hi ? hi : lo) : hi;
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  // A NaN bound: ONNX's reference (np.clip, i.e. minimum(maximum(x, min), max)) gives NaN
  // everywhere; maxNum/minNum (nan=ignore) drop the bound instead.
  const bool lo_nan = has_lo && is_nan_of(lo), hi_nan = has_hi && is_nan_of(hi);
  if (lo_nan || hi_nan) {
    const C bound_nan = lo_nan ? lo : hi;
    if (ignore) {
      if (lo_nan) lo = std::numeric_limits<C>::lowest();
      if (hi_nan) hi = std::numeric_limits<C>::max();
    } else {
      map_unary<T>(x, y, [&](C) { return bound_nan; });
      return Status::Ok();
    }
  }
  map_unary<T>(x, y, [&](C v) {
    if (nan_to_bound && is_nan_of(v)) return nan_result;
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
  });
  return Status::Ok();
}

Status clip_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  return dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return clip_typed<T>(ctx, x);
  });
}

IG_REGISTER_KERNEL("", "Clip", 1, kMaxOpset, clip_kernel);

}  // namespace
}  // namespace ig

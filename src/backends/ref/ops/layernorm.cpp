// LayerNormalization (ai.onnx 17), GroupNormalization (18 and 21) and RMSNormalization (23).
// LayerNormalization follows its function body: statistics in the stash type (float for
// stash_type=1, double for 11), Y = (X - Mean) * InvStdDev * Scale + B with Scale and B
// broadcast against X; optional Mean / InvStdDev outputs of shape [d0..d(axis-1), 1, ...].
#include "backends/ref/nn_util.h"

namespace ig {
namespace {

// The offset in a parameter broadcast against X (strides `str`, 0 on broadcast dims) of X's flat
// element i.
int64_t broadcast_offset(const Tensor& x, const std::vector<int64_t>& x_str,
                         const std::vector<int64_t>& str, int64_t i) {
  int64_t off = 0;
  for (size_t d = 0; d < x_str.size(); ++d) off += (i / x_str[d]) % x.shape()[d] * str[d];
  return off;
}

// Both normalizations read axis and stash_type (1: float, 11: double) alike; `f(T tag, U tag,
// axis)` runs the kernel for X's type T and the stash type U.
template <typename F>
Status dispatch_stash(KernelContext& ctx, F&& f) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(int axis, normalize_axis(ctx, ctx.node.attr_int("axis", -1), x.rank()));
  const int64_t stash = ctx.node.attr_int("stash_type", 1);
  if (stash != 1 && stash != 11) return ctx.unsupported_here("stash_type {}", stash);
  return dispatch_float(x.dtype(), [&](auto tag) {
    if (stash == 11) return f(tag, type_tag<double>{}, axis);
    return f(tag, type_tag<float>{}, axis);
  });
}

template <typename T, typename U>
Status layer_norm_typed(KernelContext& ctx, int axis, DType stash) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const int64_t outer = shape_numel(Shape(x.shape().begin(), x.shape().begin() + axis));
  const int64_t inner = shape_numel(Shape(x.shape().begin() + axis, x.shape().end()));
  for (const Tensor* p : {&scale, bias}) {
    if (p == nullptr) continue;
    auto bs = broadcast_shapes({p->shape(), x.shape()});
    if (p->dtype() != x.dtype() || !bs.ok() || *bs != x.shape()) {
      return ctx.fail("Scale / B {} cannot be broadcast to X {}", p->describe(), x.describe());
    }
  }
  const std::vector<int64_t> s_str = broadcast_strides(scale.shape(), x.shape());
  const std::vector<int64_t> b_str = bias ? broadcast_strides(bias->shape(), x.shape()) : s_str;
  const std::vector<int64_t> x_str = x.strides();
  Shape stat_shape = x.shape();
  for (size_t d = static_cast<size_t>(axis); d < stat_shape.size(); ++d) stat_shape[d] = 1;
  const T* px = x.data<T>();
  const T* ps = scale.data<T>();
  const T* pb = bias ? bias->data<T>() : nullptr;
  T* py = ctx.output(0, x.dtype(), x.shape()).template data<T>();
  U* pmean = ctx.output_wanted(1) ? ctx.output(1, stash, stat_shape).template data<U>() : nullptr;
  U* pinv = ctx.output_wanted(2) ? ctx.output(2, stash, stat_shape).template data<U>() : nullptr;
  const U eps = static_cast<U>(ctx.node.attr_float("epsilon", 1e-5f));
  for (int64_t o = 0; o < outer; ++o) {
    const T* xr = px + o * inner;
    auto load = [&](int64_t i) { return static_cast<U>(to_compute(xr[i])); };
    auto [mean, var] = mean_variance<U>(inner, load);
    const U inv = U{1} / std::sqrt(var + eps);
    if (pmean) pmean[o] = mean;
    if (pinv) pinv[o] = inv;
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t flat = o * inner + i;
      // Normalised value is cast back to X's type before Scale and B (as the function body).
      using C = compute_t<T>;
      const C normed = static_cast<C>((load(i) - mean) * inv);
      C v = normed * to_compute(ps[broadcast_offset(x, x_str, s_str, flat)]);
      if (pb) v += to_compute(pb[broadcast_offset(x, x_str, b_str, flat)]);
      py[flat] = from_compute<T>(v);
    }
  }
  return Status::Ok();
}

Status layer_norm(KernelContext& ctx) {
  return dispatch_stash(ctx, [&](auto t, auto u, int axis) {
    using U = typename decltype(u)::type;
    return layer_norm_typed<typename decltype(t)::type, U>(
        ctx, axis, std::is_same_v<U, double> ? DType::kFloat64 : DType::kFloat32);
  });
}

// GroupNormalization-18: statistics per (n, group) over its channels and spatial dims, then
// scale[g] * normalised + bias[g] (per group, as opset 18 defines it); from opset 21 scale and bias
// are per channel, scale[c] * normalised + bias[c]. stash_type 1 (the default, float) is what the
// compute type does already for float16 and float32; 0 is refused.
Status group_norm(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_RETURN_IF_ERROR(expect_nchw(ctx, x, "input X", 2));
  const int64_t groups = ctx.node.attr_int("num_groups", 0);
  const int64_t c = x.dim(1);
  if (groups <= 0 || c % groups != 0) {
    return ctx.fail("num_groups {} must divide the {} channels of X {}", groups, c, x.describe());
  }
  const bool per_channel = ctx.opset >= 21;
  if (per_channel && ctx.node.attr_int("stash_type", 1) != 1)
    return ctx.unsupported_here("stash_type {}", ctx.node.attr_int("stash_type", 1));
  const int64_t params = per_channel ? c : groups;
  for (size_t i = 1; i <= 2; ++i) {
    if (ctx.input(i).dtype() != x.dtype() || ctx.input(i).numel() != params) {
      return ctx.fail("input #{} {} must have {} values", i, ctx.input(i).describe(), params);
    }
  }
  const int64_t block = x.numel() / std::max<int64_t>(x.dim(0) * groups, 1);
  const int64_t per_param = per_channel ? block / (c / groups) : block;
  const float eps = ctx.node.attr_float("epsilon", 1e-5f);
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* px = x.data<T>();
    const T* ps = ctx.input(1).data<T>();
    const T* pb = ctx.input(2).data<T>();
    T* py = ctx.output(0, x.dtype(), x.shape()).template data<T>();
    for (int64_t b = 0; b * block < x.numel(); ++b) {
      const T* xb = px + b * block;
      auto [mean, var] = mean_variance<C>(block, [&](int64_t i) { return to_compute(xb[i]); });
      const int64_t g = b % groups;
      for (int64_t i = 0; i < block; ++i) {
        const int64_t k = per_channel ? g * (c / groups) + i / per_param : g;
        const C n =
            batch_norm_value<C>(to_compute(xb[i]), mean, var, static_cast<C>(eps), C{1}, C{0});
        py[b * block + i] = from_compute<T>(to_compute(ps[k]) * n + to_compute(pb[k]));
      }
    }
    return Status::Ok();
  });
}

// RMSNormalization (23) as its definition reads: in the stash type, Normalized = X / sqrt(mean(X^2
// over axes [axis, rank)) + epsilon), cast back to X's type, then Y = Normalized * Scale with Scale
// broadcast against X.
template <typename T, typename U>
Status rms_norm_typed(KernelContext& ctx, int axis) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  auto bs = broadcast_shapes({scale.shape(), x.shape()});
  if (scale.dtype() != x.dtype() || !bs.ok() || *bs != x.shape())
    return ctx.fail("scale {} cannot be broadcast to X {}", scale.describe(), x.describe());
  const int64_t outer = shape_numel(Shape(x.shape().begin(), x.shape().begin() + axis));
  const int64_t inner = shape_numel(Shape(x.shape().begin() + axis, x.shape().end()));
  const std::vector<int64_t> s_str = broadcast_strides(scale.shape(), x.shape());
  const std::vector<int64_t> x_str = x.strides();
  const T* px = x.data<T>();
  const T* ps = scale.data<T>();
  T* py = ctx.output(0, x.dtype(), x.shape()).template data<T>();
  const U eps = static_cast<U>(ctx.node.attr_float("epsilon", 1e-5f));
  const Numerics& num = current_numerics();
  using C = compute_t<T>;
  for (int64_t o = 0; o < outer; ++o) {
    const T* xr = px + o * inner;
    auto load = [&](int64_t i) { return static_cast<U>(to_compute(xr[i])); };
    const U mean_square = ordered_sum<U>(num, inner, [&](int64_t i) { return load(i) * load(i); }) /
                          static_cast<U>(inner);
    const U rms = std::sqrt(mean_square + eps);
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t flat = o * inner + i;
      const C normed = static_cast<C>(from_compute<T>(static_cast<C>(load(i) / rms)));
      py[flat] = from_compute<T>(normed * to_compute(ps[broadcast_offset(x, x_str, s_str, flat)]));
    }
  }
  return Status::Ok();
}

Status rms_norm(KernelContext& ctx) {
  return dispatch_stash(ctx, [&](auto t, auto u, int axis) {
    return rms_norm_typed<typename decltype(t)::type, typename decltype(u)::type>(ctx, axis);
  });
}

IG_REGISTER_KERNEL("", "LayerNormalization", 17, kMaxOpset, layer_norm);
IG_REGISTER_KERNEL("", "RMSNormalization", 23, kMaxOpset, rms_norm);
IG_REGISTER_KERNEL("", "GroupNormalization", 18, kMaxOpset, group_norm);

}  // namespace
}  // namespace ig

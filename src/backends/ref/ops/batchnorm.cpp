// BatchNormalization (ai.onnx 1+) and InstanceNormalization (1+).
// BatchNormalization: inference mode in every opset (1-6 is_test, <9 spatial=0 per-element
// parameters); training mode (14+ training_mode=1) normalises with the batch statistics and
// returns the updated running mean / variance. 15+ lets scale/B and mean/var have their own
// floating types: they are read into the compute type of X.
#include "backends/ref/nn_util.h"

namespace ig {
namespace {

// Parameter input i as compute-type values (any floating dtype).
template <typename C>
std::vector<C> param_values(const KernelContext& ctx, size_t i) {
  const Tensor& t = ctx.input(i);
  std::vector<C> v(static_cast<size_t>(t.numel()));
  for (int64_t k = 0; k < t.numel(); ++k)
    v[static_cast<size_t>(k)] = static_cast<C>(t.as_double(k));
  return v;
}

// Writes values into a new output of `dtype` (the dtype of the matching input).
Status store_param_output(KernelContext& ctx, size_t out, DType dtype, const Shape& shape,
                          const std::vector<double>& values) {
  return dispatch_float(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = ctx.output(out, dtype, shape).template data<T>();
    for (size_t k = 0; k < values.size(); ++k)
      p[k] = from_compute<T>(static_cast<compute_t<T>>(values[k]));
    return Status::Ok();
  });
}

Status batch_norm(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_RETURN_IF_ERROR(expect_nchw(ctx, x, "input X", 2));
  const int64_t n = x.dim(0), c = x.dim(1),
                plane = shape_numel(x.shape()) / std::max<int64_t>(n * c, 1);
  // Opsets < 9 with spatial=0 give parameters per element of [C, D1, ...].
  const bool per_element = ctx.opset < 9 && ctx.node.attr_int("spatial", 1) == 0;
  const int64_t want = per_element ? c * plane : c;
  for (size_t i = 1; i <= 4; ++i) {
    if (!is_float(ctx.input(i).dtype()) || ctx.input(i).numel() != want) {
      return ctx.fail("input #{} {} must be floating with {} values for X {}", i,
                      ctx.input(i).describe(), want, shape_to_string(x.shape()));
    }
  }
  const bool training = ctx.opset >= 14 && ctx.node.attr_int("training_mode", 0) != 0;
  if (!training && ctx.opset < 14 && ctx.opset >= 6 && ctx.node.attr_int("is_test", 1) == 0 &&
      ctx.output_wanted(1)) {
    return ctx.unsupported_here("training mode before opset 14 (is_test=0) is not implemented");
  }
  const float eps = ctx.node.attr_float("epsilon", 1e-5f);
  const float momentum = ctx.node.attr_float("momentum", 0.9f);
  return dispatch_float(x.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    std::vector<C> scale = param_values<C>(ctx, 1), bias = param_values<C>(ctx, 2),
                   mean = param_values<C>(ctx, 3), var = param_values<C>(ctx, 4);
    const T* px = x.data<T>();
    if (training) {
      // Batch statistics per channel over N and the spatial dims, in (n, spatial) order.
      std::vector<double> run_mean(static_cast<size_t>(c)), run_var(static_cast<size_t>(c));
      for (int64_t ch = 0; ch < c; ++ch) {
        auto [bm, bv] = mean_variance<C>(n * plane, [&](int64_t i) {
          return to_compute(px[((i / plane) * c + ch) * plane + i % plane]);
        });
        const auto k = static_cast<size_t>(ch);
        const C mom = static_cast<C>(momentum);
        run_mean[k] = static_cast<double>(mean[k] * mom + bm * (C{1} - mom));
        run_var[k] = static_cast<double>(var[k] * mom + bv * (C{1} - mom));
        mean[k] = bm;
        var[k] = bv;
      }
      if (ctx.output_wanted(1))
        IG_RETURN_IF_ERROR(store_param_output(ctx, 1, ctx.input(3).dtype(), {c}, run_mean));
      if (ctx.output_wanted(2))
        IG_RETURN_IF_ERROR(store_param_output(ctx, 2, ctx.input(4).dtype(), {c}, run_var));
    }
    T* py = ctx.output(0, x.dtype(), x.shape()).template data<T>();
    if (ctx.numerics.bn != Numerics::BnFormula::kOnnx) {
      // A factor f once per channel, then one multiply-add per element: folded
      // (x - mean) * f + B with f = scale / sqrt(var + eps) (oneDNN); affine x * f + (B - mean * f)
      // with f = (1 / sqrt(var + eps)) * scale (ONNX Runtime's Eigen code inverts first).
      const bool affine = ctx.numerics.bn == Numerics::BnFormula::kAffine;
      std::vector<C> factor(scale.size()), shift(scale.size());
      for (size_t k = 0; k < scale.size(); ++k) {
        const C root = std::sqrt(var[k] + static_cast<C>(eps));
        factor[k] = affine ? (C{1} / root) * scale[k] : scale[k] / root;
        shift[k] = affine ? bias[k] - mean[k] * factor[k] : bias[k];
      }
      const bool fma = ctx.numerics.acc.fma;
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t ch = (i / plane) % c;
        const auto k = static_cast<size_t>(per_element ? ch * plane + i % plane : ch);
        const C v = affine ? to_compute(px[i]) : to_compute(px[i]) - mean[k];
        py[i] = from_compute<T>(fma ? std::fma(v, factor[k], shift[k]) : v * factor[k] + shift[k]);
      }
      return Status::Ok();
    }
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t ch = (i / plane) % c;
      const auto k = static_cast<size_t>(per_element ? ch * plane + i % plane : ch);
      py[i] = from_compute<T>(batch_norm_value<C>(to_compute(px[i]), mean[k], var[k],
                                                  static_cast<C>(eps), scale[k], bias[k]));
    }
    return Status::Ok();
  });
}

Status instance_norm(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_RETURN_IF_ERROR(expect_nchw(ctx, x, "input X"));
  const int64_t c = x.dim(1), plane = shape_numel(x.shape()) / std::max<int64_t>(x.dim(0) * c, 1);
  for (size_t i = 1; i <= 2; ++i) {
    const Tensor& p = ctx.input(i);
    if (p.dtype() != x.dtype() || p.rank() != 1 || p.dim(0) != c) {
      return ctx.fail("input #{} {} must be {}[{}] for X {}", i, p.describe(),
                      dtype_name(x.dtype()), c, shape_to_string(x.shape()));
    }
  }
  const float eps = ctx.node.attr_float("epsilon", 1e-5f);
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* px = x.data<T>();
    const T* ps = ctx.input(1).data<T>();
    const T* pb = ctx.input(2).data<T>();
    T* py = ctx.output(0, x.dtype(), x.shape()).template data<T>();
    for (int64_t p = 0; p * plane < x.numel(); ++p) {
      const T* xp = px + p * plane;
      auto [mean, var] = mean_variance<C>(plane, [&](int64_t i) { return to_compute(xp[i]); });
      const C s = to_compute(ps[p % c]), b = to_compute(pb[p % c]);
      for (int64_t i = 0; i < plane; ++i)
        py[p * plane + i] = from_compute<T>(
            batch_norm_value<C>(to_compute(xp[i]), mean, var, static_cast<C>(eps), s, b));
    }
    return Status::Ok();
  });
}

IG_REGISTER_KERNEL("", "BatchNormalization", 1, kMaxOpset, batch_norm);
IG_REGISTER_KERNEL("", "InstanceNormalization", 1, kMaxOpset, instance_norm);

}  // namespace
}  // namespace ig

// MeanVarianceNormalization (ai.onnx 9+, 13 adds bf16) and LpNormalization (ai.onnx 1+).
// MVN follows its function body: y = (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9) over `axes`
// (default [0, 2, 3]). LpNormalization: y = x / ||x||_p along `axis` (p = 1 or 2), 0 where the norm
// is 0.
#include "backends/ref/reduce_util.h"

namespace ig {
namespace {

Status mean_variance_normalization(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(std::vector<int> axes,
                      normalize_axes(ctx, ctx.node.attr_ints("axes", {0, 2, 3}), x.rank()));
  const ReducePlan plan = make_reduce_plan(x.shape(), axes, /*keepdims=*/true);
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* py = ctx.output(0, x.dtype(), x.shape()).data<T>();
    const C count = static_cast<C>(plan.reduced());
    std::vector<C> mean(static_cast<size_t>(plan.outputs));
    std::vector<C> mean_sq(static_cast<size_t>(plan.outputs));
    const auto zero = [](int64_t) { return C{0}; };
    reduce_fold(
        plan, px, zero, [](C a, T v) { return a + to_compute(v); },
        [&](int64_t o, C sum) { mean[static_cast<size_t>(o)] = sum / count; });
    reduce_fold(
        plan, px, zero, [](C a, T v) { return a + to_compute(v) * to_compute(v); },
        [&](int64_t o, C sum) { mean_sq[static_cast<size_t>(o)] = sum / count; });
    for_each_reduce_output(plan, [&](int64_t o, int64_t base) {
      const C m = mean[static_cast<size_t>(o)];
      const C denom = std::sqrt(mean_sq[static_cast<size_t>(o)] - m * m) + static_cast<C>(1e-9);
      for (int64_t i = 0; i < plan.reduced(); ++i) {
        const int64_t at = base + plan.offset(i);
        py[at] = from_compute<T>((to_compute(px[at]) - m) / denom);
      }
    });
    return Status::Ok();
  });
}

Status lp_normalization(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() == 0) return ctx.fail("input must have rank >= 1");
  IG_ASSIGN_OR_RETURN(int axis, normalize_axis(ctx, ctx.node.attr_int("axis", -1), x.rank()));
  const int64_t p = ctx.node.attr_int("p", 2);
  if (p != 1 && p != 2) return ctx.fail("p must be 1 or 2, got {}", p);
  const AxisSplit s = split_at_axis(x.shape(), axis);
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* py = ctx.output(0, x.dtype(), x.shape()).data<T>();
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        const int64_t base = o * s.n * s.inner + i;
        const auto get = [&](int64_t j) { return to_compute(px[base + j * s.inner]); };
        const C acc = fold_seq(s.n, C{0}, get,
                               [&](C a, C v) { return p == 1 ? a + std::abs(v) : a + v * v; });
        const C norm = p == 1 ? acc : std::sqrt(acc);
        // A zero norm gives zeros, not 0/0 (ONNX's reference and backend test, 1.23).
        for (int64_t j = 0; j < s.n; ++j)
          py[base + j * s.inner] = from_compute<T>(norm == C{0} ? C{0} : get(j) / norm);
      }
    }
    return Status::Ok();
  });
}

IG_REGISTER_KERNEL("", "MeanVarianceNormalization", 9, kMaxOpset, mean_variance_normalization);
IG_REGISTER_KERNEL("", "LpNormalization", 1, kMaxOpset, lp_normalization);

}  // namespace
}  // namespace ig

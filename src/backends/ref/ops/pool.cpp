// Pooling: MaxPool (1+; 8 adds Indices and storage_order, 10 dilations and ceil_mode, 12 int8 /
// uint8), AveragePool (1+; 7 count_include_pad, 10 ceil_mode, 19 dilations), LpPool (1: float p,
// 2+: int p, 18 ceil_mode and dilations) and their Global* forms (a window covering the whole
// spatial extent). Sums run in index order in compute_t<T>; MaxPool reports the first maximum, NaN
// per the `nan` knob (propagate by default).
#include "backends/ref/nn_util.h"
#include "backends/ref/numerics/math.h"
#include "backends/ref/numerics/nan_mode.h"

namespace ig {
namespace {

enum class PoolKind { kMax, kAverage, kLp };

struct PoolSetup {
  int64_t planes = 0;  // N * C
  WindowGeometry g;
  Shape out_shape;
};

Expected<PoolSetup> pool_setup(const KernelContext& ctx, const Tensor& x, bool global,
                               PoolKind kind) {
  IG_RETURN_IF_ERROR(expect_nchw(ctx, x, "input X", global ? 2 : 3));
  PoolSetup p;
  p.planes = x.dim(0) * x.dim(1);
  const Shape in_sp(x.shape().begin() + 2, x.shape().end());
  if (global) {
    p.g.in = p.g.kernel = in_sp;
    p.g.out.assign(in_sp.size(), 1);
    p.g.strides.assign(in_sp.size(), 1);
    p.g.dilations.assign(in_sp.size(), 1);
    p.g.pad_begin.assign(in_sp.size(), 0);
    p.g.pad_end.assign(in_sp.size(), 0);
  } else {
    const Shape kernel = ctx.node.attr_ints("kernel_shape");
    if (kernel.empty()) return ctx.fail("attribute kernel_shape is required");
    const bool ceil_mode = ctx.node.attr_int("ceil_mode", 0) != 0;
    // dilations: MaxPool from opset 10, LpPool from 18, AveragePool from 19.
    const int64_t dilations_since = kind == PoolKind::kMax ? 10 : kind == PoolKind::kLp ? 18 : 19;
    IG_ASSIGN_OR_RETURN(
        p.g, window_geometry(ctx, in_sp, kernel, ceil_mode, ctx.opset >= dilations_since));
  }
  p.out_shape = {x.dim(0), x.dim(1)};
  p.out_shape.insert(p.out_shape.end(), p.g.out.begin(), p.g.out.end());
  return p;
}

// Flat index of input offset `tap` within a plane as MaxPool's Indices output counts it:
// row-major, or column-major over the spatial dims when storage_order = 1.
int64_t storage_index(const WindowGeometry& g, int64_t tap, bool column_major) {
  if (!column_major) return tap;
  const size_t nd = g.in.size();
  std::vector<int64_t> coord(nd);
  for (size_t d = nd; d-- > 0;) {
    coord[d] = tap % g.in[d];
    tap /= g.in[d];
  }
  int64_t idx = 0, stride = 1;
  for (size_t d = 0; d < nd; ++d) {
    idx += coord[d] * stride;
    stride *= g.in[d];
  }
  return idx;
}

// NaN follows the `nan` knob (numerics/nan_mode.h): under propagate the first NaN wins and sticks;
// under ignore a number replaces a NaN best, so a window's NaNs only show when it has nothing else.
template <typename T>
void max_pool(const PoolSetup& p, const T* px, T* py, int64_t* pi, bool column_major) {
  using C = compute_t<T>;
  const bool ignore_nan = current_numerics().nan == NanMode::kIgnore;
  const int64_t in_size = p.g.in_size(), out_size = p.g.out_size();
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    const T* xp = px + plane * in_size;
    for_each_window(p.g, [&](int64_t o, const std::vector<int64_t>& taps) {
      C best = std::numeric_limits<C>::lowest();
      int64_t best_tap = -1;
      for (int64_t t : taps) {
        if (t < 0) continue;
        const C v = to_compute(xp[t]);
        const bool wins =
            ignore_nan ? (is_nan_of(best) && !is_nan_of(v)) : (is_nan_of(v) && !is_nan_of(best));
        if (best_tap < 0 || v > best || wins) {
          best = v;
          best_tap = t;
        }
      }
      py[plane * out_size + o] = from_compute<T>(best);
      if (pi != nullptr) {
        pi[plane * out_size + o] =
            best_tap < 0 ? -1 : plane * in_size + storage_index(p.g, best_tap, column_major);
      }
    });
  }
}

template <typename T>
void sum_pool(const PoolSetup& p, const T* px, T* py, PoolKind kind, bool include_pad,
              compute_t<T> lp) {
  using C = compute_t<T>;
  const int64_t in_size = p.g.in_size(), out_size = p.g.out_size();
  const std::vector<int64_t> counts = window_counts(p.g, include_pad);
  const Numerics& num = current_numerics();
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    const T* xp = px + plane * in_size;
    for_each_window(p.g, [&](int64_t o, const std::vector<int64_t>& taps) {
      // Padding counts as zero: those taps add nothing.
      const C sum = ordered_sum<C>(num, static_cast<int64_t>(taps.size()), [&](int64_t i) {
        const int64_t t = taps[static_cast<size_t>(i)];
        if (t < 0) return C{0};
        const C v = to_compute(xp[t]);
        return kind == PoolKind::kLp ? math_pow(std::abs(v), lp) : v;
      });
      const C r = kind == PoolKind::kLp ? math_pow(sum, C{1} / lp)
                                        : sum / static_cast<C>(counts[static_cast<size_t>(o)]);
      py[plane * out_size + o] = from_compute<T>(r);
    });
  }
}

template <PoolKind kKind, bool kGlobal>
Status pool(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(PoolSetup p, pool_setup(ctx, x, kGlobal, kKind));
  if constexpr (kKind == PoolKind::kMax) {
    const bool column_major = ctx.node.attr_int("storage_order", 0) != 0;
    auto run = [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& y = ctx.output(0, x.dtype(), p.out_shape);
      int64_t* pi = nullptr;
      if (!kGlobal && ctx.output_wanted(1))
        pi = ctx.output(1, DType::kInt64, p.out_shape).data<int64_t>();
      max_pool<T>(p, x.data<T>(), y.data<T>(), pi, column_major);
      return Status::Ok();
    };
    if (x.dtype() == DType::kInt8) return run(type_tag<int8_t>{});
    if (x.dtype() == DType::kUInt8) return run(type_tag<uint8_t>{});
    return dispatch_float(x.dtype(), run);
  } else {
    const bool include_pad = ctx.node.attr_int("count_include_pad", 0) != 0;
    double lp = 2;
    if (const Attribute* a = ctx.node.attr("p"))
      lp = a->kind == Attribute::Kind::kFloat ? a->f : a->i;
    if (kKind == PoolKind::kLp && !(lp > 0)) return ctx.fail("p must be positive, got {}", lp);
    return dispatch_float(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      Tensor& y = ctx.output(0, x.dtype(), p.out_shape);
      sum_pool<T>(p, x.data<T>(), y.data<T>(), kKind, include_pad, static_cast<compute_t<T>>(lp));
      return Status::Ok();
    });
  }
}

IG_REGISTER_KERNEL("", "MaxPool", 1, kMaxOpset, pool<PoolKind::kMax, false>);
IG_REGISTER_KERNEL("", "AveragePool", 1, kMaxOpset, pool<PoolKind::kAverage, false>);
IG_REGISTER_KERNEL("", "LpPool", 1, kMaxOpset, pool<PoolKind::kLp, false>);
IG_REGISTER_KERNEL("", "GlobalMaxPool", 1, kMaxOpset, pool<PoolKind::kMax, true>);
IG_REGISTER_KERNEL("", "GlobalAveragePool", 1, kMaxOpset, pool<PoolKind::kAverage, true>);
IG_REGISTER_KERNEL("", "GlobalLpPool", 1, kMaxOpset, pool<PoolKind::kLp, true>);

}  // namespace
}  // namespace ig

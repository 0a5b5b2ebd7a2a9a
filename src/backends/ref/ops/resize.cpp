// Resize (ai.onnx 10: scales input, asymmetric; 11/13: roi, scales or sizes, every
// coordinate_transformation_mode, nearest_mode, cubic; 18: axes and keep_aspect_ratio_policy;
// antialias is unsupported) and Upsample (7: scales attribute; 9: scales input).
//
// Follows the ONNX reference implementation: coordinates are computed in double with
// length_resized = scale * input length (not the rounded output size); interpolation is
// separable, one axis at a time from the last to the first (the reference interpolates the
// innermost axes first), with neighbours clamped to the edge. Nearest copies elements (any type);
// linear and cubic accumulate in compute_t<T> (double for integers) and round once at the end.
#include <cmath>
#include <limits>

#include "backends/ref/shape_util.h"

namespace ig {
namespace {

struct ResizeParams {
  std::string mode = "nearest";
  std::string coord = "half_pixel";
  std::string nearest = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
  std::vector<double> scales;  // per axis
  Shape out_shape;
  std::vector<double> roi;  // [starts..., ends...] or empty
};

double original_coord(const ResizeParams& p, size_t d, int64_t x, int64_t in_len) {
  const double s = p.scales[d];
  const double len_resized = s * static_cast<double>(in_len);
  const double xd = static_cast<double>(x);
  const std::string& c = p.coord;
  if (c == "half_pixel") return (xd + 0.5) / s - 0.5;
  if (c == "pytorch_half_pixel") return len_resized > 1 ? (xd + 0.5) / s - 0.5 : -0.5;
  if (c == "align_corners")
    return len_resized == 1 ? 0.0 : xd * static_cast<double>(in_len - 1) / (len_resized - 1);
  if (c == "asymmetric") return xd / s;
  if (c == "tf_half_pixel_for_nn") return (xd + 0.5) / s;
  if (c == "half_pixel_symmetric") {
    const double adj = static_cast<double>(p.out_shape[d]) / len_resized;
    const double center = static_cast<double>(in_len) / 2;
    return center * (1 - adj) + (xd + 0.5) / s - 0.5;
  }
  // tf_crop_and_resize
  const size_t rank = p.scales.size();
  const double start = p.roi[d], end = p.roi[rank + d];
  const double span = static_cast<double>(in_len - 1);
  if (len_resized == 1) return (end - start) * span / 2 + start * span;
  return xd * (end - start) * span / (len_resized - 1) + start * span;
}

// x is first clamped to a range that keeps the int64 conversion defined (NaN goes to -1).
int64_t nearest_index(const std::string& mode, double x, int64_t in_len) {
  x = x >= -1 ? std::min(x, static_cast<double>(in_len)) : -1.0;
  if (mode == "floor") return static_cast<int64_t>(std::floor(x));
  if (mode == "ceil") return static_cast<int64_t>(std::ceil(x));
  if (mode == "round_prefer_ceil") return static_cast<int64_t>(std::floor(x + 0.5));
  return static_cast<int64_t>(std::ceil(x - 0.5));  // round_prefer_floor
}

bool outside(const ResizeParams& p, double x, int64_t in_len) {
  return p.coord == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(in_len - 1));
}

// Interpolation taps of one output position along one axis.
struct Taps {
  std::vector<int64_t> idx;  // clamped input indices
  std::vector<double> w;
  bool extrapolate = false;
};

Taps make_taps(const ResizeParams& p, double x, int64_t in_len) {
  Taps t;
  if (outside(p, x, in_len)) {
    t.extrapolate = true;
    return t;
  }
  x = x >= -2 ? std::min(x, static_cast<double>(in_len) + 1) : -2.0;  // defined int64 casts
  // base = floor(x), but one lower for integral x so the ratio lies in (0, 1] like the reference.
  const double base = std::ceil(x) - 1;
  const double r = x - base;
  std::vector<double> w;
  int64_t first;
  if (p.mode == "linear") {
    w = {1 - r, r};
    first = static_cast<int64_t>(base);
  } else {
    const double a = p.cubic_a;
    auto far = [a](double v) { return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a; };
    auto near = [a](double v) { return ((a + 2) * v - (a + 3)) * v * v + 1; };
    w = {far(r + 1), near(r), near(1 - r), far(2 - r)};
    first = static_cast<int64_t>(base) - 1;
  }
  double sum = 0;
  for (size_t k = 0; k < w.size(); ++k) {
    const int64_t i = first + static_cast<int64_t>(k);
    if (p.exclude_outside && (i < 0 || i >= in_len)) w[k] = 0;
    sum += w[k];
    t.idx.push_back(std::clamp<int64_t>(i, 0, in_len - 1));
  }
  if (p.exclude_outside && sum != 0) {
    for (double& v : w) v /= sum;
  }
  t.w = std::move(w);
  return t;
}

Status resize_nearest(KernelContext& ctx, const Tensor& x, const ResizeParams& p) {
  const auto strides = x.strides();
  OffsetTables tables;
  for (size_t d = 0; d < p.out_shape.size(); ++d) {
    const int64_t in_len = x.shape()[d];
    std::vector<int64_t> t(static_cast<size_t>(p.out_shape[d]));
    for (int64_t j = 0; j < p.out_shape[d]; ++j) {
      const double xo = original_coord(p, d, j, in_len);
      const int64_t i = std::clamp<int64_t>(nearest_index(p.nearest, xo, in_len), 0, in_len - 1);
      t[static_cast<size_t>(j)] = outside(p, xo, in_len) ? kFillOffset : i * strides[d];
    }
    tables.push_back(std::move(t));
  }
  Tensor fill(x.dtype(), {});
  if (p.coord == "tf_crop_and_resize") {
    IG_RETURN_IF_ERROR(dispatch_numeric(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      *fill.data<T>() = from_compute<T>(static_cast<compute_t<T>>(p.extrapolation));
      return Status::Ok();
    }));
  }
  Tensor& out = ctx.output(0, x.dtype(), p.out_shape);
  return remap_copy(x, out, tables, &fill);
}

// Integers interpolate in double and are truncated (saturating) back, like the reference's astype.
template <typename T>
using interp_t = std::conditional_t<std::is_integral_v<T>, double, compute_t<T>>;

template <typename T>
T from_interp(interp_t<T> v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T{0};
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (v <= lo) return std::numeric_limits<T>::min();
    if (v >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(std::trunc(v));
  } else {
    return from_compute<T>(v);
  }
}

template <typename T>
Status resize_interp(KernelContext& ctx, const Tensor& x, const ResizeParams& p) {
  using C = interp_t<T>;
  Shape cur = x.shape();
  std::vector<C> buf(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i)
    buf[static_cast<size_t>(i)] = static_cast<C>(to_compute(x.data<T>()[i]));
  for (size_t d = cur.size(); d-- > 0;) {
    const int64_t in_len = cur[d], out_len = p.out_shape[d];
    std::vector<Taps> taps;
    bool identity = in_len == out_len;
    for (int64_t j = 0; j < out_len; ++j) {
      taps.push_back(make_taps(p, original_coord(p, d, j, in_len), in_len));
      const Taps& t = taps.back();  // identity: all weight on input index j
      double at_j = 0;
      for (size_t k = 0; k < t.idx.size(); ++k) {
        if (t.idx[k] == j) at_j += t.w[k];
        if (t.idx[k] != j && t.w[k] != 0.0) identity = false;
      }
      if (t.extrapolate || at_j != 1.0) identity = false;
    }
    if (identity) continue;
    const int64_t outer = dims_product(cur, 0, d);
    const int64_t inner = dims_product(cur, d + 1, cur.size());
    std::vector<C> next(static_cast<size_t>(outer * out_len * inner));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < out_len; ++j) {
        const Taps& t = taps[static_cast<size_t>(j)];
        C* dst = next.data() + (o * out_len + j) * inner;
        for (int64_t k = 0; k < inner; ++k) {
          if (t.extrapolate) {
            dst[k] = static_cast<C>(p.extrapolation);
            continue;
          }
          C acc = 0;
          for (size_t n = 0; n < t.idx.size(); ++n)
            acc += static_cast<C>(t.w[n]) *
                   buf[static_cast<size_t>((o * in_len + t.idx[n]) * inner + k)];
          dst[k] = acc;
        }
      }
    }
    buf = std::move(next);
    cur[d] = out_len;
  }
  Tensor& out = ctx.output(0, x.dtype(), p.out_shape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.data<T>()[i] = from_interp<T>(buf[static_cast<size_t>(i)]);
  return Status::Ok();
}

Status run_resize(KernelContext& ctx, const Tensor& x, ResizeParams& p) {
  if (p.out_shape.empty()) {
    for (size_t d = 0; d < p.scales.size(); ++d) {
      if (!(p.scales[d] > 0) || !std::isfinite(p.scales[d]))
        return ctx.fail("scale {} for axis {} must be positive and finite", p.scales[d], d);
      const double len = std::floor(static_cast<double>(x.shape()[d]) * p.scales[d]);
      if (!(len < 0x1p62)) return ctx.fail("output length {} of axis {} is too large", len, d);
      p.out_shape.push_back(static_cast<int64_t>(len));
    }
  }
  for (size_t d = 0; d < p.out_shape.size(); ++d) {
    if (x.shape()[d] == 0 && p.out_shape[d] > 0)
      return ctx.fail("cannot resize the empty axis {} to {}", d, p.out_shape[d]);
  }
  Tensor& probe = ctx.output(0, x.dtype(), p.out_shape);  // rejects absurd sizes early
  if (probe.numel() == 0) return Status::Ok();
  if (p.coord == "tf_crop_and_resize" && p.roi.size() != 2 * p.scales.size())
    return ctx.fail("tf_crop_and_resize needs an roi of {} values", 2 * p.scales.size());
  if (p.mode == "nearest") return resize_nearest(ctx, x, p);
  if (p.mode != "linear" && p.mode != "cubic") return ctx.fail("unknown mode '{}'", p.mode);
  return dispatch_numeric(
      x.dtype(), [&](auto tag) { return resize_interp<typename decltype(tag)::type>(ctx, x, p); });
}

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.as_double(i));
  return v;
}

Status resize(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const size_t rank = x.shape().size();
  const Node& n = ctx.node;
  ResizeParams p;
  p.mode = n.attr_string("mode", "nearest");
  if (p.mode == "bilinear") p.mode = "linear";
  if (ctx.opset < 11) {
    p.coord = "asymmetric";
    if (!ctx.has_input(1)) return ctx.fail("scales input is required");
    p.scales = to_doubles(ctx.input(1));
  } else {
    p.coord = n.attr_string("coordinate_transformation_mode", "half_pixel");
    p.nearest = n.attr_string("nearest_mode", "round_prefer_floor");
    p.cubic_a = n.attr_float("cubic_coeff_a", -0.75f);
    p.exclude_outside = n.attr_int("exclude_outside", 0) != 0;
    p.extrapolation = n.attr_float("extrapolation_value", 0.0f);
    if (ctx.has_input(1)) p.roi = to_doubles(ctx.input(1));
    if (ctx.opset >= 18 && n.attr_int("antialias", 0) != 0)
      return ctx.unsupported_here("antialias=1");
    std::vector<int64_t> axes;
    if (ctx.opset >= 18 && n.has_attr("axes")) {
      // In the order given: roi, scales and sizes list their values in that order (axes=[3,2]).
      for (int64_t raw : n.attr_ints("axes")) {
        IG_ASSIGN_OR_RETURN(const int a, normalize_axis(ctx, raw, static_cast<int>(rank)));
        if (std::find(axes.begin(), axes.end(), a) != axes.end())
          return ctx.fail("axes repeat axis {}", a);
        axes.push_back(a);
      }
    } else {
      for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
    }
    const bool has_scales = ctx.has_input(2) && ctx.input(2).numel() > 0;
    const bool has_sizes = ctx.has_input(3) && ctx.input(3).numel() > 0;
    if (has_scales == has_sizes) return ctx.fail("exactly one of scales and sizes must be given");
    p.scales.assign(rank, 1.0);
    if (!p.roi.empty() && p.roi.size() == 2 * axes.size() && axes.size() != rank) {
      std::vector<double> full(2 * rank, 0.0);
      for (size_t d = 0; d < rank; ++d) full[rank + d] = 1.0;
      for (size_t i = 0; i < axes.size(); ++i) {
        full[static_cast<size_t>(axes[i])] = p.roi[i];
        full[rank + static_cast<size_t>(axes[i])] = p.roi[axes.size() + i];
      }
      p.roi = full;
    }
    if (has_scales) {
      const auto s = to_doubles(ctx.input(2));
      if (s.size() != axes.size())
        return ctx.fail("scales has {} values for {} axes", s.size(), axes.size());
      for (size_t i = 0; i < axes.size(); ++i) p.scales[static_cast<size_t>(axes[i])] = s[i];
    } else {
      IG_ASSIGN_OR_RETURN(std::vector<int64_t> sz, read_int_list(ctx, 3, "sizes"));
      if (sz.size() != axes.size())
        return ctx.fail("sizes has {} values for {} axes", sz.size(), axes.size());
      p.out_shape = x.shape();
      const std::string policy =
          ctx.opset >= 18 ? n.attr_string("keep_aspect_ratio_policy", "stretch") : "stretch";
      double common = policy == "not_larger" ? INFINITY : 0.0;
      for (size_t i = 0; i < axes.size(); ++i) {
        const auto a = static_cast<size_t>(axes[i]);
        if (sz[i] < 0) return ctx.fail("negative size {}", sz[i]);
        const double s = static_cast<double>(sz[i]) / static_cast<double>(x.shape()[a]);
        p.scales[a] = s;
        p.out_shape[a] = sz[i];
        common = policy == "not_larger" ? std::min(common, s) : std::max(common, s);
      }
      if (policy != "stretch") {
        if (policy != "not_larger" && policy != "not_smaller")
          return ctx.fail("unknown keep_aspect_ratio_policy '{}'", policy);
        if (!std::isfinite(common) || !(common > 0))
          return ctx.fail("keep_aspect_ratio_policy needs non-empty axes and sizes");
        for (int64_t a : axes) {
          const auto u = static_cast<size_t>(a);
          p.scales[u] = common;
          p.out_shape[u] =
              static_cast<int64_t>(std::round(common * static_cast<double>(x.shape()[u])));
        }
      }
    }
  }
  if (p.scales.size() != rank)
    return ctx.fail("scales has {} values for rank {}", p.scales.size(), rank);
  return run_resize(ctx, x, p);
}

Status upsample(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  ResizeParams p;
  p.mode = ctx.node.attr_string("mode", "nearest");
  if (p.mode == "bilinear") p.mode = "linear";
  if (p.mode != "nearest" && p.mode != "linear") return ctx.fail("unknown mode '{}'", p.mode);
  p.coord = "asymmetric";
  p.nearest = "floor";
  if (ctx.opset >= 9) {
    p.scales = to_doubles(ctx.input(1));
  } else {
    for (float f : ctx.node.attr_floats("scales")) p.scales.push_back(f);
  }
  if (p.scales.size() != x.shape().size())
    return ctx.fail("scales has {} values for rank {}", p.scales.size(), x.rank());
  return run_resize(ctx, x, p);
}

IG_REGISTER_KERNEL("", "Resize", 10, kMaxOpset, resize);
IG_REGISTER_KERNEL("", "Upsample", 7, 9, upsample);

}  // namespace
}  // namespace ig

// Generators: Range (ai.onnx 11+), OneHot (9+; negative indices from 11), EyeLike (9+) and
// Trilu (14+).
#include <cmath>

#include "backends/ref/shape_util.h"

namespace ig {
namespace {

Status range(KernelContext& ctx) {
  const Tensor& s = ctx.input(0);
  const Tensor& l = ctx.input(1);
  const Tensor& d = ctx.input(2);
  // Range-27 accumulates float16 and bfloat16 in the type stash_type names.
  if (ctx.opset >= 27 && (s.dtype() == DType::kFloat16 || s.dtype() == DType::kBFloat16))
    return ctx.unsupported_here("Range-27 of {} (stash_type)", dtype_name(s.dtype()));
  if (s.dtype() != l.dtype() || s.dtype() != d.dtype())
    return ctx.fail("start, limit and delta must have one type");
  if (s.numel() != 1 || l.numel() != 1 || d.numel() != 1)
    return ctx.fail("start, limit and delta must be scalars");
  Status st = dispatch_numeric(s.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const C start = to_compute(s.data<T>()[0]);
    const C limit = to_compute(l.data<T>()[0]);
    const C delta = to_compute(d.data<T>()[0]);
    if (delta == C{0}) return ctx.fail("delta is 0");
    // Count in double so integer ranges are exact and float ranges match numpy's arange.
    const double n = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                               static_cast<double>(delta));
    if (!(n < 1e12)) return ctx.fail("range of {} elements is too large", n);
    const auto count = static_cast<int64_t>(std::max(n, 0.0));
    Tensor& out = ctx.output(0, s.dtype(), {count});
    T* o = out.data<T>();
    for (int64_t i = 0; i < count; ++i)
      o[i] = from_compute<T>(static_cast<C>(start + static_cast<C>(i) * delta));
    return Status::Ok();
  });
  return st;
}

Status one_hot(KernelContext& ctx) {
  const Tensor& idx = ctx.input(0);
  const Tensor& depth_t = ctx.input(1);
  const Tensor& values = ctx.input(2);
  if (depth_t.numel() != 1) return ctx.fail("depth must have one element");
  if (values.numel() != 2) return ctx.fail("values must have two elements [off, on]");
  if (!is_float(idx.dtype()) && !is_integer(idx.dtype()))
    return ctx.fail("indices must be numeric, got {}", dtype_name(idx.dtype()));
  const double depth_d = depth_t.as_double(0);
  if (!(depth_d >= 1 && depth_d < 0x1p62)) return ctx.fail("depth {} is out of range", depth_d);
  const auto depth = static_cast<int64_t>(depth_d);
  const int out_rank = idx.rank() + 1;
  IG_ASSIGN_OR_RETURN(int axis, normalize_axis(ctx, ctx.node.attr_int("axis", -1), out_rank));
  Shape out_shape = idx.shape();
  out_shape.insert(out_shape.begin() + axis, depth);
  const int64_t outer = dims_product(idx.shape(), 0, static_cast<size_t>(axis));
  const int64_t inner = dims_product(idx.shape(), static_cast<size_t>(axis), idx.shape().size());
  Tensor& out = ctx.output(0, values.dtype(), out_shape);
  return dispatch_move(values.dtype(), [&](auto tag) {
    using W = typename decltype(tag)::type;
    const W off = words<W>(values)[0];
    const W on = words<W>(values)[1];
    W* o = words<W>(out);
    std::fill(o, o + out.numel(), off);
    for (int64_t a = 0; a < outer; ++a) {
      for (int64_t b = 0; b < inner; ++b) {
        const double v = idx.as_double(a * inner + b);
        if (!(std::fabs(v) < 0x1p62)) continue;  // NaN or far out of range: all "off"
        auto k = static_cast<int64_t>(v);
        if (k < 0) k += depth;
        if (k < 0 || k >= depth) continue;  // out of range: the row stays all "off"
        o[(a * depth + k) * inner + b] = on;
      }
    }
    return Status::Ok();
  });
}

Status eye_like(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() != 2) return ctx.fail("input must be 2-D, got {}", x.describe());
  const int64_t dt = ctx.node.attr_int("dtype", static_cast<int64_t>(x.dtype()));
  if (!is_valid_dtype(static_cast<int32_t>(dt))) return ctx.fail("invalid dtype {}", dt);
  const auto dtype = static_cast<DType>(dt);
  const int64_t k = ctx.node.attr_int("k", 0);
  Tensor& out = ctx.output(0, dtype, x.shape());
  Status st = dispatch_pod(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = out.data<T>();
    const int64_t rows = x.dim(0), cols = x.dim(1);
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t j = i + k;
      if (j >= 0 && j < cols) o[i * cols + j] = from_compute<T>(static_cast<compute_t<T>>(1));
    }
    return Status::Ok();
  });
  return st.ok() ? st : st.with_context(ctx.node.label());
}

Status trilu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() < 2) return ctx.fail("input must have rank >= 2, got {}", x.describe());
  int64_t k = 0;
  if (ctx.has_input(1)) {
    if (ctx.input(1).numel() != 1) return ctx.fail("k must be a scalar");
    k = ctx.input(1).as_int64(0);
  }
  const bool upper = ctx.node.attr_int("upper", 1) != 0;
  const int64_t rows = x.dim(-2), cols = x.dim(-1);
  Tensor out = x.clone();
  return dispatch_move(x.dtype(), [&](auto tag) {
    using W = typename decltype(tag)::type;
    W* o = words<W>(out);
    const int64_t mats = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
    for (int64_t m = 0; m < mats; ++m)
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          const bool keep = upper ? j - i >= k : j - i <= k;
          if (!keep) o[(m * rows + i) * cols + j] = W{};
        }
    ctx.set_output(0, out);
    return Status::Ok();
  });
}

IG_REGISTER_KERNEL("", "Range", 11, kMaxOpset, range);
IG_REGISTER_KERNEL("", "OneHot", 9, kMaxOpset, one_hot);
IG_REGISTER_KERNEL("", "EyeLike", 9, kMaxOpset, eye_like);
IG_REGISTER_KERNEL("", "Trilu", 14, kMaxOpset, trilu);

}  // namespace
}  // namespace ig

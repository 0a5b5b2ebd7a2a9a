// CumSum (ai.onnx 11+; 14 adds fp16/bf16) and CumProd (26): running sum or product along the axis
// input, optionally exclusive (each output excludes its own element) and reversed. The running
// value is a sequential accumulator in compute precision, each partial result rounded once to the
// output type.
#include "backends/ref/reduce_util.h"

namespace ig {
namespace {

Status cumulative(KernelContext& ctx, bool product) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(int64_t raw_axis, read_scalar_int_input(ctx, 1, "axis"));
  IG_ASSIGN_OR_RETURN(int axis, normalize_axis(ctx, raw_axis, x.rank()));
  const bool exclusive = ctx.node.attr_int("exclusive", 0) != 0;
  const bool reverse = ctx.node.attr_int("reverse", 0) != 0;
  const AxisSplit s = split_at_axis(x.shape(), axis);
  return dispatch_numeric(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* px = x.data<T>();
    T* py = ctx.output(0, x.dtype(), x.shape()).data<T>();
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t i = 0; i < s.inner; ++i) {
        const int64_t base = o * s.n * s.inner + i;
        C acc = product ? C{1} : C{0};
        for (int64_t j = 0; j < s.n; ++j) {
          const int64_t k = reverse ? s.n - 1 - j : j;
          const int64_t at = base + k * s.inner;
          const C v = to_compute(px[at]);
          const auto step = [&] { acc = product ? static_cast<C>(acc * v) : acc_add(acc, v); };
          if (!exclusive) step();
          py[at] = from_compute<T>(acc);
          if (exclusive) step();
        }
      }
    }
    return Status::Ok();
  });
}

Status cumsum(KernelContext& ctx) { return cumulative(ctx, false); }
Status cumprod(KernelContext& ctx) { return cumulative(ctx, true); }

IG_REGISTER_KERNEL("", "CumSum", 11, kMaxOpset, cumsum);
IG_REGISTER_KERNEL("", "CumProd", 26, kMaxOpset, cumprod);

}  // namespace
}  // namespace ig

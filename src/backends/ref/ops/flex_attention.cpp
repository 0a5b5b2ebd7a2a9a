// FlexAttention (ai.onnx.preview 1): attention whose scores and probabilities pass through
// graphs the model carries. Q [B, Hq, L, E], K [B, Hkv, S, E], V [B, Hkv, S, Ev] (Hq a multiple
// of Hkv); Q and K each times sqrt(scale) (default 1/sqrt(E), computed in float32, rounded to the
// inputs' type), Q K^T through the platform's GEMM rounded to that type, then in the softmax type
// (float32 for half types, else the inputs'): score_mod on the whole [B, Hq, L, S] scores, the
// softmax over S, prob_mod on the probabilities, times V, rounded to V's type. A
// softmax_precision other than that type is refused per node.
#include <cmath>
#include <limits>

#include "backends/ref/control_util.h"
#include "backends/ref/numerics/float_gemm.h"
#include "backends/ref/numerics/math.h"
#include "backends/ref/numerics/ordered_sum.h"

namespace ig {
namespace {

// Runs the graph attribute `name` (when the node has it) on `t`, which it must give back as a
// tensor of the same type and shape.
Status apply_mod(KernelContext& ctx, const std::string& name, Tensor& t) {
  if (!ctx.node.has_attr(name)) return Status::Ok();
  IG_ASSIGN_OR_RETURN(const Graph* g, control::graph_attr(ctx, name));
  auto outs = ctx.run_subgraph(*g, {Value::of(t)});
  if (!outs.ok()) return outs.status().with_context(ctx.node.label() + " " + name);
  if (outs->size() != 1 || !(*outs)[0].is_tensor() || (*outs)[0].tensor.shape() != t.shape() ||
      (*outs)[0].tensor.dtype() != t.dtype())
    return ctx.fail("{} must give one {} back", name, t.describe());
  t = std::move((*outs)[0].tensor);
  return Status::Ok();
}

template <typename T>
Status flex_attention_typed(KernelContext& ctx) {
  using C = compute_t<T>;  // the softmax type: float32 for half types
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  const Tensor& v = ctx.input(2);
  const int64_t B = q.dim(0), Hq = q.dim(1), L = q.dim(2), E = q.dim(3), Hkv = k.dim(1),
                S = k.dim(2), Ev = v.dim(3);
  const float scale_attr =
      ctx.node.has_attr("scale") ? ctx.node.attr_float("scale", 1.0f) : 1.0f / std::sqrt(float(E));
  const C ss = rounded_to<T>(static_cast<C>(std::sqrt(scale_attr)));
  const DType soft_type = dtype_of<C>;
  Tensor scores(soft_type, {B, Hq, L, S});
  std::vector<C> qs(static_cast<size_t>(L * E)), kt(static_cast<size_t>(E * S)),
      prod(static_cast<size_t>(L * S));
  const int64_t group = Hq / Hkv;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      const T* pq = q.data<T>() + (b * Hq + h) * L * E;
      const T* pk = k.data<T>() + (b * Hkv + h / group) * S * E;
      for (int64_t i = 0; i < L * E; ++i)
        qs[static_cast<size_t>(i)] = rounded_to<T>(to_compute(pq[i]) * ss);
      for (int64_t j = 0; j < S; ++j)
        for (int64_t d = 0; d < E; ++d)
          kt[static_cast<size_t>(d * S + j)] = rounded_to<T>(to_compute(pk[j * E + d]) * ss);
      float_gemm<C>(ctx.numerics, L, S, E, qs.data(), E, 1, kt.data(), S, prod.data(), S);
      C* out = scores.data<C>() + (b * Hq + h) * L * S;
      for (int64_t i = 0; i < L * S; ++i) out[i] = rounded_to<T>(prod[static_cast<size_t>(i)]);
    }
  IG_RETURN_IF_ERROR(apply_mod(ctx, "score_mod", scores));
  C* ps = scores.data<C>();
  for (int64_t r = 0; r < B * Hq * L; ++r) {
    C* row = ps + r * S;
    C mx = -std::numeric_limits<C>::infinity();
    for (int64_t j = 0; j < S; ++j) mx = std::max(mx, row[j]);
    for (int64_t j = 0; j < S; ++j) row[j] = math_exp(row[j] - mx);
    const C sum = ordered_sum<C>(ctx.numerics, S, [&](int64_t j) { return row[j]; });
    for (int64_t j = 0; j < S; ++j) row[j] /= sum;
  }
  IG_RETURN_IF_ERROR(apply_mod(ctx, "prob_mod", scores));
  ps = scores.data<C>();
  T* py = ctx.output(0, v.dtype(), {B, Hq, L, Ev}).data<T>();
  std::vector<C> vv(static_cast<size_t>(S * Ev)), o(static_cast<size_t>(L * Ev));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      const T* pv = v.data<T>() + (b * Hkv + h / group) * S * Ev;
      for (int64_t i = 0; i < S * Ev; ++i) vv[static_cast<size_t>(i)] = to_compute(pv[i]);
      float_gemm<C>(ctx.numerics, L, Ev, S, ps + (b * Hq + h) * L * S, S, 1, vv.data(), Ev,
                    o.data(), Ev);
      for (int64_t i = 0; i < L * Ev; ++i)
        py[(b * Hq + h) * L * Ev + i] = from_compute<T>(o[static_cast<size_t>(i)]);
    }
  return Status::Ok();
}

Status flex_attention(KernelContext& ctx) {
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  const Tensor& v = ctx.input(2);
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4 || k.dtype() != q.dtype() ||
      v.dtype() != q.dtype())
    return ctx.fail("Q {}, K {} and V {} must be 4-D of one type", q.describe(), k.describe(),
                    v.describe());
  if (k.dim(0) != q.dim(0) || v.dim(0) != q.dim(0) || k.dim(3) != q.dim(3) ||
      v.dim(1) != k.dim(1) || v.dim(2) != k.dim(2) || k.dim(1) <= 0 || q.dim(1) % k.dim(1) != 0)
    return ctx.fail("K {} and V {} do not fit Q {}", k.describe(), v.describe(), q.describe());
  return dispatch_float(q.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto soft = static_cast<int64_t>(dtype_of<compute_t<T>>);  // ONNX's numbering
    if (ctx.node.has_attr("softmax_precision") &&
        ctx.node.attr_int("softmax_precision", soft) != soft)
      return ctx.unsupported_here("a softmax_precision other than {} for {} inputs",
                                  dtype_name(dtype_of<compute_t<T>>), dtype_name(q.dtype()));
    return flex_attention_typed<T>(ctx);
  });
}

IG_REGISTER_KERNEL("ai.onnx.preview", "FlexAttention", 1, kMaxOpset, flex_attention);

}  // namespace
}  // namespace ig

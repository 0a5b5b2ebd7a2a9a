// LinearAttention (ai.onnx 27): the recurrent form of linear attention (Gated DeltaNet and its
// kin). Per batch and KV head a state S [d_k, d_v] (past_state, or zeros) is updated token by
// token: gated rules first decay it, S *= exp(g_t) (g per head or per key dim); delta rules
// replace v_t by beta_t * (v_t - S^T k_t); then S += k_t v_t^T. Query head h reads KV head
// h / (q_heads / kv_heads): o_t = scale * q_t^T S (scale default 1/sqrt(d_k)). Everything runs in
// compute precision (float32 for half types, as the definition computes it) with the platform's
// ordered sums, rounded once to the output type; present_state is the last S. A past_state of
// another type than the query's is refused per node.
#include <cmath>

#include "backends/ref/kernel_util.h"
#include "backends/ref/numerics/math.h"
#include "backends/ref/numerics/ordered_sum.h"

namespace ig {
namespace {

struct LinearShape {
  int64_t batch, len, q_heads, kv_heads, dk, dv;
  int64_t decay_per = 0;   // decay values per KV head and token: 1 or d_k (0: no decay)
  int64_t beta_heads = 0;  // beta values per token: kv_heads or 1 (0: no beta)
};

Expected<LinearShape> linear_shape(KernelContext& ctx, bool gating, bool delta) {
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  const Tensor& v = ctx.input(2);
  const int64_t qh = ctx.node.attr_int("q_num_heads", 0),
                kvh = ctx.node.attr_int("kv_num_heads", 0);
  if (qh <= 0 || kvh <= 0 || qh % kvh != 0)
    return ctx.fail("q_num_heads ({}) must be a positive multiple of kv_num_heads ({})", qh, kvh);
  for (const Tensor* t : {&q, &k, &v})
    if (t->rank() != 3 || t->dim(0) != q.dim(0) || t->dim(1) != q.dim(1) || t->dtype() != q.dtype())
      return ctx.fail(
          "query {}, key {} and value {} must be [batch, tokens, heads * dim] of one type",
          q.describe(), k.describe(), v.describe());
  if (q.dim(2) % qh != 0 || k.dim(2) % kvh != 0 || v.dim(2) % kvh != 0 ||
      q.dim(2) / qh != k.dim(2) / kvh)
    return ctx.fail("query {} / {} heads and key {} / {} heads give no common head size",
                    q.describe(), qh, k.describe(), kvh);
  LinearShape s{q.dim(0), q.dim(1), qh, kvh, q.dim(2) / qh, v.dim(2) / kvh};
  if (gating != ctx.has_input(4))
    return ctx.fail("update_rule {} decay", gating ? "needs" : "forbids");
  if (delta != ctx.has_input(5))
    return ctx.fail("update_rule {} beta", delta ? "needs" : "forbids");
  if (gating) {
    const Tensor& g = ctx.input(4);
    if (g.rank() != 3 || g.dim(0) != s.batch || g.dim(1) != s.len || g.dtype() != q.dtype() ||
        (g.dim(2) != kvh && g.dim(2) != kvh * s.dk))
      return ctx.fail("decay {} must be [{}, {}, {} or {}]", g.describe(), s.batch, s.len, kvh,
                      kvh * s.dk);
    s.decay_per = g.dim(2) / kvh;
  }
  if (delta) {
    const Tensor& b = ctx.input(5);
    if (b.rank() != 3 || b.dim(0) != s.batch || b.dim(1) != s.len || b.dtype() != q.dtype() ||
        (b.dim(2) != kvh && b.dim(2) != 1))
      return ctx.fail("beta {} must be [{}, {}, {} or 1]", b.describe(), s.batch, s.len, kvh);
    s.beta_heads = b.dim(2);
  }
  if (ctx.has_input(3)) {
    const Tensor& p = ctx.input(3);
    if (p.shape() != Shape{s.batch, kvh, s.dk, s.dv})
      return ctx.fail("past_state {} must be [{}, {}, {}, {}]", p.describe(), s.batch, kvh, s.dk,
                      s.dv);
    if (p.dtype() != q.dtype())
      return ctx.unsupported_here("a past_state of type {} beside {} queries is not followed",
                                  dtype_name(p.dtype()), dtype_name(q.dtype()));
  }
  return s;
}

template <typename T>
Status linear_attention_typed(KernelContext& ctx, const LinearShape& s, bool gating, bool delta) {
  using C = compute_t<T>;
  const auto load = [](const Tensor& t, int64_t i) { return to_compute(t.data<T>()[i]); };
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  const Tensor& v = ctx.input(2);
  const double scale_attr = static_cast<double>(ctx.node.attr_float("scale", 0.0f));
  const C scale = scale_attr == 0.0 ? C(1) / std::sqrt(static_cast<C>(s.dk)) : C(scale_attr);
  const int64_t dk = s.dk, dv = s.dv, group = s.q_heads / s.kv_heads;
  std::vector<C> state(static_cast<size_t>(s.batch * s.kv_heads * dk * dv), C(0));
  if (ctx.has_input(3))
    for (size_t i = 0; i < state.size(); ++i)
      state[i] = load(ctx.input(3), static_cast<int64_t>(i));
  T* out = ctx.output(0, q.dtype(), {s.batch, s.len, s.q_heads * dv}).data<T>();
  std::vector<C> kt(static_cast<size_t>(dk)), vt(static_cast<size_t>(dv));
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t t = 0; t < s.len; ++t) {
      const int64_t token = b * s.len + t;
      for (int64_t h = 0; h < s.kv_heads; ++h) {
        C* st = state.data() + (b * s.kv_heads + h) * dk * dv;
        for (int64_t d = 0; d < dk; ++d)
          kt[static_cast<size_t>(d)] = load(k, (token * s.kv_heads + h) * dk + d);
        for (int64_t m = 0; m < dv; ++m)
          vt[static_cast<size_t>(m)] = load(v, (token * s.kv_heads + h) * dv + m);
        if (gating)
          for (int64_t d = 0; d < dk; ++d) {
            const int64_t at =
                token * s.kv_heads * s.decay_per + h * s.decay_per + (s.decay_per == 1 ? 0 : d);
            const C factor = math_exp(load(ctx.input(4), at));
            for (int64_t m = 0; m < dv; ++m) st[d * dv + m] *= factor;
          }
        if (delta) {
          const C beta = load(ctx.input(5), token * s.beta_heads + (s.beta_heads == 1 ? 0 : h));
          for (int64_t m = 0; m < dv; ++m) {
            const C retrieved = ordered_sum<C>(ctx.numerics, dk, [&](int64_t d) {
              return st[d * dv + m] * kt[static_cast<size_t>(d)];
            });
            vt[static_cast<size_t>(m)] = beta * (vt[static_cast<size_t>(m)] - retrieved);
          }
        }
        for (int64_t d = 0; d < dk; ++d)
          for (int64_t m = 0; m < dv; ++m)
            st[d * dv + m] += kt[static_cast<size_t>(d)] * vt[static_cast<size_t>(m)];
      }
      for (int64_t h = 0; h < s.q_heads; ++h) {
        const C* st = state.data() + (b * s.kv_heads + h / group) * dk * dv;
        const int64_t qat = (token * s.q_heads + h) * dk;
        for (int64_t m = 0; m < dv; ++m) {
          const C dot = ordered_sum<C>(
              ctx.numerics, dk, [&](int64_t d) { return load(q, qat + d) * st[d * dv + m]; });
          out[(token * s.q_heads + h) * dv + m] = from_compute<T>(scale * dot);
        }
      }
    }
  }
  if (ctx.output_wanted(1)) {
    T* present = ctx.output(1, q.dtype(), {s.batch, s.kv_heads, dk, dv}).data<T>();
    for (size_t i = 0; i < state.size(); ++i) present[i] = from_compute<T>(state[i]);
  }
  return Status::Ok();
}

Status linear_attention(KernelContext& ctx) {
  const std::string rule = ctx.node.attr_string("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta")
    return ctx.fail("update_rule '{}' is not linear, gated, delta or gated_delta", rule);
  const bool gating = rule == "gated" || rule == "gated_delta";
  const bool delta = rule == "delta" || rule == "gated_delta";
  IG_ASSIGN_OR_RETURN(const LinearShape s, linear_shape(ctx, gating, delta));
  return dispatch_float(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return linear_attention_typed<T>(ctx, s, gating, delta);
  });
}

IG_REGISTER_KERNEL("", "LinearAttention", 27, kMaxOpset, linear_attention);

}  // namespace
}  // namespace ig

// Attention (ai.onnx 23): scaled dot-product attention as its definition computes it. Q, K, V are
// [batch, heads, seq, head] or [batch, seq, hidden] with q_num_heads/kv_num_heads; past_key and
// past_value are prepended to K and V (present_key/present_value); grouped-query attention shares
// each KV head among q_num_heads / kv_num_heads query heads; both Q and K are multiplied by
// sqrt(scale) (default 1/sqrt(head)) before Q K^T; softcap, then the bias (attn_mask, boolean or
// additive, padded to the KV length; is_causal: key j for query i iff j <= i + past length); a
// softmax whose fully masked rows are zero; then times V. Elementwise steps round to the inputs'
// type, as the definition's numpy computes; the two products go through the platform's GEMM.
// Attention-24's external cache (nonpad_kv_seqlen: batch b's keys from nonpad[b] on are padding,
// and its causal frontier is j <= i + nonpad[b] - q_len) and Attention-25's sliding windows (key
// j for the query at position p = i + that offset iff p - left <= j <= p + right, -1 unbounded)
// mask like the causal bias. Refused per node: a softmax_precision other than the inputs' type.
#include <cmath>
#include <limits>

#include "backends/ref/nn_util.h"
#include "backends/ref/numerics/float_gemm.h"
#include "backends/ref/numerics/math.h"
#include "backends/ref/numerics/ordered_sum.h"

namespace ig {
namespace {

struct AttnShape {
  int64_t batch = 0, q_heads = 0, kv_heads = 0, q_len = 0, kv_new = 0, past = 0, head = 0,
          v_head = 0;
  bool three_d = false;
  int64_t kv_len() const { return past + kv_new; }
};

// Which keys a query may attend, besides the mask: the causal frontier and the sliding window,
// both aligned at the query block's offset in the keys, and the external cache's padding.
struct KeyRule {
  bool causal = false;
  int64_t left = -1, right = -1;    // window sides, -1 unbounded
  const int64_t* nonpad = nullptr;  // [batch] valid keys per batch (Attention-24), or none
  int64_t past = 0, q_len = 0;
  int64_t offset(int64_t b) const { return nonpad ? nonpad[b] - q_len : past; }
  bool allows(int64_t b, int64_t i, int64_t j) const {
    const int64_t diff = i + offset(b) - j;  // the query's position minus the key's
    if (causal && diff < 0) return false;
    if (left >= 0 && diff > left) return false;
    if (right >= 0 && -diff > right) return false;
    return !nonpad || j < nonpad[b];
  }
};

// The rule of the node's attributes and its nonpad_kv_seqlen input, checked against the shape.
Expected<KeyRule> key_rule(KernelContext& ctx, const AttnShape& s) {
  KeyRule r;
  r.causal = ctx.node.attr_int("is_causal", 0) != 0;
  r.left = ctx.node.attr_int("left_window_size", -1);
  r.right = ctx.node.attr_int("right_window_size", -1);
  if (r.left < -1 || r.right < -1)
    return ctx.fail("window sizes {} and {} must be -1 or nonnegative", r.left, r.right);
  r.past = s.past;
  r.q_len = s.q_len;
  if (ctx.has_input(6)) {
    const Tensor& n = ctx.input(6);
    if (s.past > 0 || ctx.has_input(4))
      return ctx.fail("nonpad_kv_seqlen cannot be combined with past_key/past_value");
    if (n.dtype() != DType::kInt64 || n.rank() != 1 || n.dim(0) != s.batch)
      return ctx.fail("nonpad_kv_seqlen {} must be int64[{}]", n.describe(), s.batch);
    for (int64_t b = 0; b < s.batch; ++b)
      if (n.data<int64_t>()[b] < 0 || n.data<int64_t>()[b] > s.kv_len())
        return ctx.fail("nonpad_kv_seqlen[{}] = {} is outside [0, {}]", b, n.data<int64_t>()[b],
                        s.kv_len());
    r.nonpad = n.data<int64_t>();
  }
  return r;
}

// Element (b, h, s, d) of a 4-D [b, h, s, d] tensor, or of a 3-D [b, s, h * d] one.
int64_t offset(bool three_d, int64_t heads, int64_t len, int64_t dim, int64_t b, int64_t h,
               int64_t s, int64_t d) {
  return three_d ? (b * len + s) * heads * dim + h * dim + d
                 : ((b * heads + h) * len + s) * dim + d;
}

Expected<AttnShape> attention_shape(KernelContext& ctx) {
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  const Tensor& v = ctx.input(2);
  if (q.rank() != k.rank() || q.rank() != v.rank() || (q.rank() != 3 && q.rank() != 4))
    return ctx.fail("Q {}, K {} and V {} must all be 3-D or all 4-D", q.describe(), k.describe(),
                    v.describe());
  AttnShape s;
  s.batch = q.dim(0);
  if (q.rank() == 4) {
    s = {q.dim(0), q.dim(1), k.dim(1), q.dim(2), k.dim(2), 0, q.dim(3), v.dim(3), false};
    if (v.dim(1) != k.dim(1) || v.dim(2) != k.dim(2) || k.dim(3) != q.dim(3))
      return ctx.fail("K {} and V {} do not fit Q {}", k.describe(), v.describe(), q.describe());
  } else {
    const int64_t qh = ctx.node.attr_int("q_num_heads", 0),
                  kvh = ctx.node.attr_int("kv_num_heads", 0);
    if (qh <= 0 || kvh <= 0 || q.dim(2) % qh != 0 || k.dim(2) % kvh != 0 || v.dim(2) % kvh != 0)
      return ctx.fail(
          "3-D inputs need q_num_heads ({}) and kv_num_heads ({}) dividing their "
          "hidden sizes (Q {}, K {}, V {})",
          qh, kvh, q.describe(), k.describe(), v.describe());
    s = {q.dim(0), qh, kvh, q.dim(1), k.dim(1), 0, q.dim(2) / qh, v.dim(2) / kvh, true};
    if (k.dim(2) / kvh != s.head || v.dim(1) != k.dim(1))
      return ctx.fail("K {} and V {} do not fit Q {}", k.describe(), v.describe(), q.describe());
  }
  if (k.dim(0) != s.batch || v.dim(0) != s.batch)
    return ctx.fail("Q, K and V differ in batch ({}, {}, {})", s.batch, k.dim(0), v.dim(0));
  if (s.q_heads % s.kv_heads != 0)
    return ctx.fail("{} query heads cannot share {} KV heads", s.q_heads, s.kv_heads);
  if (ctx.has_input(4) != ctx.has_input(5))
    return ctx.fail("past_key and past_value must be given together");
  if (ctx.has_input(4)) {
    const Tensor& pk = ctx.input(4);
    const Tensor& pv = ctx.input(5);
    if (pk.rank() != 4 || pv.rank() != 4 || pk.dim(0) != s.batch || pk.dim(1) != s.kv_heads ||
        pk.dim(3) != s.head || pv.dim(0) != s.batch || pv.dim(1) != s.kv_heads ||
        pv.dim(2) != pk.dim(2) || pv.dim(3) != s.v_head)
      return ctx.fail("past_key {} / past_value {} must be [{}, {}, past, {}] / [.., {}]",
                      pk.describe(), pv.describe(), s.batch, s.kv_heads, s.head, s.v_head);
    s.past = pk.dim(2);
  }
  return s;
}

template <typename T>
Status attention_typed(KernelContext& ctx, const AttnShape& s, const KeyRule& rule) {
  using C = compute_t<T>;
  auto in_t = [](C v) { return rounded_to<T>(v); };  // numpy rounds every op to T
  const C neg_inf = -std::numeric_limits<C>::infinity();
  const Tensor& q = ctx.input(0);
  const int64_t L = s.kv_len(), D = s.head, DV = s.v_head;
  // present_key / present_value: past then new, [batch, kv_heads, L, head].
  Tensor pk(q.dtype(), {s.batch, s.kv_heads, L, D}), pv(q.dtype(), {s.batch, s.kv_heads, L, DV});
  for (int io = 0; io < 2; ++io) {
    Tensor& present = io == 0 ? pk : pv;
    const int64_t dim = io == 0 ? D : DV;
    const T* fresh = ctx.input(1 + io).data<T>();
    const T* past = ctx.has_input(4 + io) ? ctx.input(4 + io).data<T>() : nullptr;
    T* out = present.data<T>();
    for (int64_t b = 0; b < s.batch; ++b)
      for (int64_t h = 0; h < s.kv_heads; ++h)
        for (int64_t j = 0; j < L; ++j)
          for (int64_t d = 0; d < dim; ++d)
            out[((b * s.kv_heads + h) * L + j) * dim + d] =
                j < s.past
                    ? past[((b * s.kv_heads + h) * s.past + j) * dim + d]
                    : fresh[offset(s.three_d, s.kv_heads, s.kv_new, dim, b, h, j - s.past, d)];
  }
  // sqrt(scale), computed in double as the definition does, then in T.
  const double scale_attr = ctx.node.has_attr("scale")
                                ? static_cast<double>(ctx.node.attr_float("scale", 1.0f))
                                : 1.0 / std::sqrt(static_cast<double>(D));
  const C sc = rounded_to<T>(static_cast<C>(std::sqrt(scale_attr)));
  const float softcap = ctx.node.attr_float("softcap", 0.0f);
  const int64_t mode = ctx.node.attr_int("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) return ctx.fail("qk_matmul_output_mode {} is not 0..3", mode);
  // The mask, right-aligned to [batch, q_heads, q_len, kv] and padded along kv.
  const Tensor* mask = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  Shape mshape;
  if (mask) {
    if (mask->rank() < 1 || mask->rank() > 4 ||
        (mask->dtype() != DType::kBool && mask->dtype() != q.dtype()))
      return ctx.fail("attn_mask {} must be bool or {}, 1-D to 4-D", mask->describe(),
                      dtype_name(q.dtype()));
    mshape = Shape(4 - mask->rank(), 1);
    mshape.insert(mshape.end(), mask->shape().begin(), mask->shape().end());
    const Shape want = {s.batch, s.q_heads, s.q_len, L};
    for (int i = 0; i < 3; ++i)
      if (mshape[i] != 1 && mshape[i] != want[i])
        return ctx.fail("attn_mask {} does not broadcast to [{}, {}, {}, {}]", mask->describe(),
                        s.batch, s.q_heads, s.q_len, L);
    if (mshape[3] > L)
      return ctx.fail("attn_mask {} is longer than the {} keys", mask->describe(), L);
  }
  auto bias = [&](int64_t b, int64_t h, int64_t i, int64_t j) -> C {
    C v = C(0);
    if (mask) {
      if (j >= mshape[3]) {
        v = neg_inf;  // padding: False or -inf
      } else {
        const int64_t at =
            (((mshape[0] == 1 ? 0 : b) * mshape[1] + (mshape[1] == 1 ? 0 : h)) * mshape[2] +
             (mshape[2] == 1 ? 0 : i)) *
                mshape[3] +
            j;
        v = mask->dtype() == DType::kBool ? (mask->data<bool>()[at] ? C(0) : neg_inf)
                                          : to_compute(mask->data<T>()[at]);
      }
    }
    if (!rule.allows(b, i, j)) v = neg_inf;
    return v;
  };
  const int64_t group = s.q_heads / s.kv_heads;
  Tensor& y = ctx.output(
      0, q.dtype(),
      s.three_d ? Shape{s.batch, s.q_len, s.q_heads * DV} : Shape{s.batch, s.q_heads, s.q_len, DV});
  Tensor* qk_out =
      ctx.output_wanted(3) ? &ctx.output(3, q.dtype(), {s.batch, s.q_heads, s.q_len, L}) : nullptr;
  std::vector<C> qs(static_cast<size_t>(s.q_len * D)), kt(static_cast<size_t>(D * L)),
      vv(static_cast<size_t>(L * DV)), scores(static_cast<size_t>(s.q_len * L)),
      out(static_cast<size_t>(s.q_len * DV));
  const T* pq = q.data<T>();
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t h = 0; h < s.q_heads; ++h) {
      const int64_t kh = h / group;
      for (int64_t i = 0; i < s.q_len; ++i)
        for (int64_t d = 0; d < D; ++d)
          qs[static_cast<size_t>(i * D + d)] =
              in_t(to_compute(pq[offset(s.three_d, s.q_heads, s.q_len, D, b, h, i, d)]) * sc);
      for (int64_t j = 0; j < L; ++j) {
        for (int64_t d = 0; d < D; ++d)
          kt[static_cast<size_t>(d * L + j)] =
              in_t(to_compute(pk.data<T>()[((b * s.kv_heads + kh) * L + j) * D + d]) * sc);
        for (int64_t d = 0; d < DV; ++d)
          vv[static_cast<size_t>(j * DV + d)] =
              to_compute(pv.data<T>()[((b * s.kv_heads + kh) * L + j) * DV + d]);
      }
      float_gemm<C>(ctx.numerics, s.q_len, L, D, qs.data(), D, 1, kt.data(), L, scores.data(), L);
      for (int64_t i = 0; i < s.q_len; ++i) {
        C* row = scores.data() + i * L;
        T* qk_row = qk_out ? qk_out->data<T>() + ((b * s.q_heads + h) * s.q_len + i) * L : nullptr;
        bool all_masked = true;
        C mx = neg_inf;
        for (int64_t j = 0; j < L; ++j) {
          C x = in_t(row[j]);
          if (qk_row && mode == 0) qk_row[j] = from_compute<T>(x);
          if (softcap > 0) x = in_t(in_t(math_tanh(in_t(x / C(softcap)))) * C(softcap));
          if (qk_row && mode == 1) qk_row[j] = from_compute<T>(x);
          const C bj = bias(b, h, i, j);
          all_masked = all_masked && bj == neg_inf;
          x = in_t(x + bj);
          if (qk_row && mode == 2) qk_row[j] = from_compute<T>(x);
          row[j] = x;
          mx = std::max(mx, x);
        }
        // Softmax over the row; a row of -inf (no attendable key) and a fully masked bias give 0.
        const C safe = mx == neg_inf ? C(0) : mx;
        for (int64_t j = 0; j < L; ++j) row[j] = in_t(math_exp(in_t(row[j] - safe)));
        C sum = in_t(ordered_sum<C>(ctx.numerics, L, [&](int64_t j) { return row[j]; }));
        if (sum == C(0)) sum = C(1);
        for (int64_t j = 0; j < L; ++j) {
          row[j] = all_masked ? C(0) : in_t(row[j] / sum);
          if (qk_row && mode == 3) qk_row[j] = from_compute<T>(row[j]);
        }
      }
      float_gemm<C>(ctx.numerics, s.q_len, DV, L, scores.data(), L, 1, vv.data(), DV, out.data(),
                    DV);
      T* py = y.data<T>();
      for (int64_t i = 0; i < s.q_len; ++i)
        for (int64_t d = 0; d < DV; ++d)
          py[offset(s.three_d, s.q_heads, s.q_len, DV, b, h, i, d)] =
              from_compute<T>(out[static_cast<size_t>(i * DV + d)]);
    }
  }
  if (ctx.output_wanted(1)) ctx.set_output(1, std::move(pk));
  if (ctx.output_wanted(2)) ctx.set_output(2, std::move(pv));
  return Status::Ok();
}

Status attention(KernelContext& ctx) {
  const Tensor& q = ctx.input(0);
  if (ctx.node.has_attr("softmax_precision") &&
      ctx.node.attr_int("softmax_precision", 0) !=
          static_cast<int64_t>(q.dtype()))  // DType is ONNX's numbering
    return ctx.unsupported_here("softmax_precision other than the inputs' type is not followed");
  IG_ASSIGN_OR_RETURN(const AttnShape s, attention_shape(ctx));
  IG_ASSIGN_OR_RETURN(const KeyRule rule, key_rule(ctx, s));
  return dispatch_float(q.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return attention_typed<T>(ctx, s, rule);
  });
}

IG_REGISTER_KERNEL("", "Attention", 23, kMaxOpset, attention);

}  // namespace
}  // namespace ig

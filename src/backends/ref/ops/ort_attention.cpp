// MultiHeadAttention and Attention (com.microsoft; Attention at the end of this file).
// MultiHeadAttention, as ONNX Runtime's contrib schema defines it, in the form its
// transformer optimizer writes for self- and cross-attention: query [B, S, D], key [B, L, D] and
// value [B, L, Dv] (all 3-D and all given), an optional bias
// [D + D + Dv] added to Q, K and V, past_key / past_value [B, N, P, H] prepended to K and V
// (present_key / present_value), then per head softmax(Q K^T * scale + attention_bias + mask) V
// with scale 1/sqrt(H) by default. Masked keys (key_padding_mask: [B] key lengths or [B, P + L]
// of 1 keep / 0 mask; unidirectional: key j for query i iff j <= P + i) get mask_filter_value
// (-10000 by default) added, not -inf, as ORT does. Refused per node: packed QKV or KV, 4-D key
// and value, past_sequence_length and cache_indirection (the decoder-masked forms), output qk.
#include <array>
#include <cmath>

#include "backends/ref/attention_util.h"
#include "backends/ref/numerics/float_gemm.h"

namespace ig {
namespace {

struct MhaShape {
  int64_t batch = 0, heads = 0, q_len = 0, kv_new = 0, past = 0, head = 0, v_head = 0;
  int64_t total() const { return past + kv_new; }
};

Expected<MhaShape> mha_shape(KernelContext& ctx) {
  if (!ctx.has_input(1) || !ctx.has_input(2))
    return ctx.unsupported_here("packed QKV (no separate key and value)");
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  const Tensor& v = ctx.input(2);
  if (q.rank() != 3) return ctx.unsupported_here("query {} (packed or not 3-D)", q.describe());
  if (k.rank() != 3 || v.rank() != 3)
    return ctx.unsupported_here("key {} and value {} (only 3-D)", k.describe(), v.describe());
  for (size_t i : {8, 9})
    if (ctx.has_input(i)) return ctx.unsupported_here("input #{} (decoder-masked attention)", i);
  if (ctx.output_wanted(3)) return ctx.unsupported_here("output qk");
  MhaShape s;
  s.heads = ctx.node.attr_int("num_heads", 0);
  if (s.heads <= 0 || q.dim(2) % s.heads != 0 || k.dim(2) != q.dim(2) || v.dim(2) % s.heads != 0)
    return ctx.fail("num_heads {} must divide query {} and value {}, and key {} match query",
                    s.heads, q.describe(), v.describe(), k.describe());
  if (k.dim(0) != q.dim(0) || v.dim(0) != q.dim(0) || v.dim(1) != k.dim(1))
    return ctx.fail("key {} and value {} do not fit query {}", k.describe(), v.describe(),
                    q.describe());
  for (const Tensor* t : {&k, &v})
    if (t->dtype() != q.dtype())
      return ctx.fail("{} is not {}", t->describe(), dtype_name(q.dtype()));
  s.batch = q.dim(0);
  s.q_len = q.dim(1);
  s.kv_new = k.dim(1);
  s.head = q.dim(2) / s.heads;
  s.v_head = v.dim(2) / s.heads;
  if (ctx.has_input(6) != ctx.has_input(7))
    return ctx.fail("past_key and past_value come together");
  if (ctx.has_input(6)) {
    const Tensor& pk = ctx.input(6);
    const Tensor& pv = ctx.input(7);
    if (pk.rank() != 4 || pk.dim(0) != s.batch || pk.dim(1) != s.heads || pk.dim(3) != s.head ||
        pv.rank() != 4 || pv.dim(0) != s.batch || pv.dim(1) != s.heads || pv.dim(2) != pk.dim(2) ||
        pv.dim(3) != s.v_head)
      return ctx.fail("past_key {} and past_value {} must be [B, N, P, H]", pk.describe(),
                      pv.describe());
    s.past = pk.dim(2);
  }
  if (ctx.has_input(3)) {
    const Tensor& bias = ctx.input(3);
    if (bias.dtype() != q.dtype() || bias.numel() != 2 * q.dim(2) + v.dim(2))
      return ctx.fail("bias {} must hold D + D + Dv = {} values", bias.describe(),
                      2 * q.dim(2) + v.dim(2));
  }
  return s;
}

// Whether key j is masked for query i of batch b (key_padding_mask and unidirectional).
struct KeyMask {
  const Tensor* mask = nullptr;
  bool causal = false;
  int64_t total = 0, past = 0;
  bool masked(int64_t b, int64_t i, int64_t j) const {
    if (causal && j > past + i) return true;
    if (mask == nullptr) return false;
    const int32_t* m = mask->data<int32_t>();
    return mask->rank() == 1 ? j >= m[b] : m[b * total + j] == 0;
  }
};

// What the attention reads, wherever it came from: Q [B, S, N * H], K [B, L, N * H] and V
// [B, L, N * Hv] (plus bias [Dq + Dk + Dv], rounded to T after the add), past K/V [B, N, P, .].
template <typename T>
struct MhaOperands {
  const T* q = nullptr;
  const T* k = nullptr;
  const T* v = nullptr;
  const T* bias = nullptr;
  const T* past_k = nullptr;
  const T* past_v = nullptr;
  const Tensor* key_mask = nullptr;
  const Tensor* attn_bias = nullptr;
};

// Output 0 = softmax(Q K^T * scale + attention_bias + mask) V per head; pk / pv receive the
// present key and value [B, N, P + L, .].
template <typename T>
Status attend(KernelContext& ctx, const MhaShape& s, const MhaOperands<T>& in, Tensor& pk,
              Tensor& pv) {
  using C = compute_t<T>;
  const DType dtype = ctx.input(0).dtype();
  const int64_t H = s.head, HV = s.v_head, N = s.heads, T_ = s.total();
  const int64_t dq = N * H, dv = N * HV;
  const T* bias = in.bias;
  // Q, K, V plus their bias, rounded to T as the separate Add ORT's unfused graph had.
  auto biased = [&](const T* p, int64_t at, int64_t bias_at) {
    return bias ? rounded_to<T>(to_compute(p[at]) + to_compute(bias[bias_at])) : to_compute(p[at]);
  };
  pk = Tensor(dtype, {s.batch, N, T_, H});
  pv = Tensor(dtype, {s.batch, N, T_, HV});
  for (int io = 0; io < 2; ++io) {
    Tensor& present = io == 0 ? pk : pv;
    const int64_t dim = io == 0 ? H : HV, width = io == 0 ? dq : dv;
    const int64_t bias_base = io == 0 ? dq : 2 * dq;
    const T* fresh = io == 0 ? in.k : in.v;
    const T* past = io == 0 ? in.past_k : in.past_v;
    T* out = present.data<T>();
    for (int64_t b = 0; b < s.batch; ++b)
      for (int64_t h = 0; h < N; ++h)
        for (int64_t j = 0; j < T_; ++j)
          for (int64_t d = 0; d < dim; ++d)
            out[((b * N + h) * T_ + j) * dim + d] =
                j < s.past ? past[((b * N + h) * s.past + j) * dim + d]
                           : from_compute<T>(
                                 biased(fresh, (b * s.kv_new + j - s.past) * width + h * dim + d,
                                        bias_base + h * dim + d));
  }
  // scale 0 (or absent) means 1/sqrt(H), as ORT reads it.
  const float scale_attr = ctx.node.attr_float("scale", 0.0f);
  const C scale = scale_attr != 0.0f ? static_cast<C>(scale_attr)
                                     : static_cast<C>(1.0 / std::sqrt(static_cast<double>(H)));
  const C filter = static_cast<C>(ctx.node.attr_float("mask_filter_value", -10000.0f));
  KeyMask km;
  km.causal = ctx.node.attr_int("unidirectional", 0) != 0;
  km.total = T_;
  km.past = s.past;
  if (in.key_mask) {
    km.mask = in.key_mask;
    const Tensor& m = *km.mask;
    const bool lengths = m.rank() == 1 && m.dim(0) == s.batch;
    const bool keep = m.rank() == 2 && m.dim(0) == s.batch && m.dim(1) == T_;
    if (m.dtype() != DType::kInt32 || (!lengths && !keep))
      return ctx.unsupported_here("key_padding_mask {} (int32 [B] or [B, {}] are followed)",
                                  m.describe(), T_);
  }
  const Tensor* attn_bias = in.attn_bias;
  if (attn_bias && (attn_bias->rank() != 4 || attn_bias->dtype() != dtype ||
                    (attn_bias->dim(0) != 1 && attn_bias->dim(0) != s.batch) ||
                    (attn_bias->dim(1) != 1 && attn_bias->dim(1) != N) ||
                    attn_bias->dim(2) != s.q_len || attn_bias->dim(3) != T_))
    return ctx.fail("attention_bias {} must be [B or 1, N or 1, {}, {}]", attn_bias->describe(),
                    s.q_len, T_);
  Tensor& y = ctx.output(0, dtype, {s.batch, s.q_len, dv});
  std::vector<C> qs(static_cast<size_t>(s.q_len * H)), kt(static_cast<size_t>(H * T_)),
      vv(static_cast<size_t>(T_ * HV)), scores(static_cast<size_t>(s.q_len * T_)),
      out(static_cast<size_t>(s.q_len * HV));
  const T* pq = in.q;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t h = 0; h < N; ++h) {
      for (int64_t i = 0; i < s.q_len; ++i)
        for (int64_t d = 0; d < H; ++d)
          qs[static_cast<size_t>(i * H + d)] =
              biased(pq, (b * s.q_len + i) * dq + h * H + d, h * H + d);
      for (int64_t j = 0; j < T_; ++j) {
        for (int64_t d = 0; d < H; ++d)
          kt[static_cast<size_t>(d * T_ + j)] =
              to_compute(pk.data<T>()[((b * N + h) * T_ + j) * H + d]);
        for (int64_t d = 0; d < HV; ++d)
          vv[static_cast<size_t>(j * HV + d)] =
              to_compute(pv.data<T>()[((b * N + h) * T_ + j) * HV + d]);
      }
      float_gemm<C>(ctx.numerics, s.q_len, T_, H, qs.data(), H, 1, kt.data(), T_, scores.data(),
                    T_);
      for (int64_t i = 0; i < s.q_len; ++i) {
        C* row = scores.data() + i * T_;
        for (int64_t j = 0; j < T_; ++j) {
          C x = row[j] * scale;
          if (attn_bias)
            x += to_compute(attn_bias->data<T>()[attention_bias_offset(*attn_bias, b, h, i, j)]);
          if (km.masked(b, i, j)) x += filter;
          row[j] = x;
        }
        softmax_span<C>(ctx.numerics, row, T_, 0, T_ - 1, nullptr);
      }
      float_gemm<C>(ctx.numerics, s.q_len, HV, T_, scores.data(), T_, 1, vv.data(), HV, out.data(),
                    HV);
      T* py = y.data<T>();
      for (int64_t i = 0; i < s.q_len; ++i)
        for (int64_t d = 0; d < HV; ++d)
          py[(b * s.q_len + i) * dv + h * HV + d] =
              from_compute<T>(out[static_cast<size_t>(i * HV + d)]);
    }
  }
  return Status::Ok();
}

Status multi_head_attention(KernelContext& ctx) {
  IG_ASSIGN_OR_RETURN(const MhaShape s, mha_shape(ctx));
  return dispatch_float(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto data = [&](size_t i) { return ctx.has_input(i) ? ctx.input(i).data<T>() : nullptr; };
    MhaOperands<T> in{data(0), data(1), data(2), data(3), data(6), data(7)};
    in.key_mask = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    in.attn_bias = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    Tensor pk, pv;
    IG_RETURN_IF_ERROR(attend<T>(ctx, s, in, pk, pv));
    if (ctx.output_wanted(1)) ctx.set_output(1, std::move(pk));
    if (ctx.output_wanted(2)) ctx.set_output(2, std::move(pv));
    return Status::Ok();
  });
}

// com.microsoft Attention, as ORT's optimizer fuses BERT and GPT-2 layers: Q, K, V = input x
// weights + bias, split by qkv_hidden_sizes (equal thirds by default), then the attention above;
// past is [2, B, N, P, H] and present [2, B, N, P + S, H]. Refused per node: rotary,
// past_present_share_buffer, past_sequence_length, masks other than int32 [B] or [B, P + S].
Expected<MhaShape> ms_attention_shape(KernelContext& ctx, std::array<int64_t, 3>& sizes) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  if (x.rank() != 3 || w.rank() != 2 || w.dim(0) != x.dim(2) || w.dtype() != x.dtype())
    return ctx.fail("input {} and weights {} must be [B, S, D] and [D, Dq + Dk + Dv]", x.describe(),
                    w.describe());
  const std::vector<int64_t> given = ctx.node.attr_ints("qkv_hidden_sizes");
  if (!given.empty() && given.size() != 3)
    return ctx.fail("qkv_hidden_sizes has {} values, not 3", given.size());
  sizes = given.empty() ? std::array<int64_t, 3>{w.dim(1) / 3, w.dim(1) / 3, w.dim(1) / 3}
                        : std::array<int64_t, 3>{given[0], given[1], given[2]};
  MhaShape s;
  s.heads = ctx.node.attr_int("num_heads", 0);
  if (s.heads <= 0 || sizes[0] != sizes[1] || sizes[0] + sizes[1] + sizes[2] != w.dim(1) ||
      sizes[0] % s.heads != 0 || sizes[2] % s.heads != 0)
    return ctx.fail("num_heads {} and hidden sizes {}/{}/{} do not fit weights {}", s.heads,
                    sizes[0], sizes[1], sizes[2], w.describe());
  if (ctx.node.attr_int("do_rotary", 0) != 0) return ctx.unsupported_here("do_rotary");
  if (ctx.node.attr_int("past_present_share_buffer", 0) != 0)
    return ctx.unsupported_here("past_present_share_buffer");
  if (ctx.has_input(6)) return ctx.unsupported_here("past_sequence_length");
  s.batch = x.dim(0);
  s.q_len = s.kv_new = x.dim(1);
  s.head = sizes[0] / s.heads;
  s.v_head = sizes[2] / s.heads;
  if (ctx.has_input(2) && (ctx.input(2).dtype() != x.dtype() || ctx.input(2).numel() != w.dim(1)))
    return ctx.fail("bias {} must hold {} values", ctx.input(2).describe(), w.dim(1));
  if (ctx.has_input(4)) {
    const Tensor& past = ctx.input(4);
    if (past.rank() != 5 || past.dtype() != x.dtype() || past.dim(0) != 2 ||
        past.dim(1) != s.batch || past.dim(2) != s.heads || past.dim(4) != s.head ||
        s.head != s.v_head)
      return ctx.fail("past {} must be [2, {}, {}, P, {}]", past.describe(), s.batch, s.heads,
                      s.head);
    s.past = past.dim(3);
  }
  return s;
}

Status ms_attention(KernelContext& ctx) {
  std::array<int64_t, 3> sizes{};
  IG_ASSIGN_OR_RETURN(const MhaShape s, ms_attention_shape(ctx, sizes));
  return dispatch_float(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const Tensor& x = ctx.input(0);
    const int64_t rows = s.batch * s.q_len, width = sizes[0] + sizes[1] + sizes[2];
    const ComputeView<T> vx(x.data<T>(), x.numel()),
        vw(ctx.input(1).data<T>(), ctx.input(1).numel());
    std::vector<C> qkv(static_cast<size_t>(rows * width));
    float_gemm<C>(ctx.numerics, rows, width, x.dim(2), vx.data(), x.dim(2), 1, vw.data(), width,
                  qkv.data(), width);
    const T* bias = ctx.has_input(2) ? ctx.input(2).data<T>() : nullptr;
    std::array<std::vector<T>, 3> parts;
    int64_t first = 0;
    for (size_t p = 0; p < 3; ++p) {
      parts[p].resize(static_cast<size_t>(rows * sizes[p]));
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < sizes[p]; ++c) {
          C v = qkv[static_cast<size_t>(r * width + first + c)];
          if (bias) v += to_compute(bias[first + c]);
          parts[p][static_cast<size_t>(r * sizes[p] + c)] = from_compute<T>(v);
        }
      first += sizes[p];
    }
    MhaOperands<T> in{parts[0].data(), parts[1].data(), parts[2].data()};
    if (ctx.has_input(4)) {
      in.past_k = ctx.input(4).data<T>();
      in.past_v = in.past_k + ctx.input(4).numel() / 2;
    }
    in.key_mask = ctx.has_input(3) ? &ctx.input(3) : nullptr;
    in.attn_bias = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    Tensor pk, pv;
    IG_RETURN_IF_ERROR(attend<T>(ctx, s, in, pk, pv));
    if (ctx.output_wanted(1)) {
      Tensor& present = ctx.output(1, x.dtype(), {2, s.batch, s.heads, s.total(), s.head});
      std::copy_n(pk.data<T>(), pk.numel(), present.data<T>());
      std::copy_n(pv.data<T>(), pv.numel(), present.data<T>() + pk.numel());
    }
    return Status::Ok();
  });
}

IG_REGISTER_KERNEL("com.microsoft", "MultiHeadAttention", 1, kMaxOpset, multi_head_attention);
IG_REGISTER_KERNEL("com.microsoft", "Attention", 1, kMaxOpset, ms_attention);

}  // namespace
}  // namespace ig

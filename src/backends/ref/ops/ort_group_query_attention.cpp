// GroupQueryAttention (com.microsoft), as ONNX Runtime's contrib schema defines it for the decoders
// its GenAI builder writes: query [B, S, N * H] with key and value [B, S, kvN * H] (or all three
// packed in query, key and value absent), past_key / past_value [B, kvN, P, H], seqlens_k [B]
// (int32: the index of each batch's last token, total - 1) and total_sequence_length (int32
// scalar). Query i of batch b sits at position p = seqlens_k[b] + 1 - S + i and attends causally
// to keys 0..p; each kv head serves N / kvN query heads. do_rotary rotates Q and the new K at
// those positions with cos_cache / sin_cache [max_position, rotary_dim / 2] (rotary_interleaved:
// pairs (2i, 2i+1), else halves). Scores: Q K^T * scale (1/sqrt(H) by default), then softcap *
// tanh(. / softcap) where softcap > 0, plus attention_bias [B or 1, N or 1, S, P + S], masked keys
// excluded (local_window_size w > 0 keeps the w keys p - w + 1 .. p), softmax (smooth_softmax: an
// extra logit of 0; head_sink: an extra logit per head), times V. present_key / present_value are
// past then the new (rotated) K and V: [B, kvN, P + S, H]. Refused per node: batches of different
// lengths (right padding), past and present sharing one buffer, position_ids, qk output.
#include <cmath>

#include "backends/ref/attention_util.h"
#include "backends/ref/numerics/float_gemm.h"

namespace ig {
namespace {

struct GqaShape {
  int64_t batch = 0, heads = 0, kv_heads = 0, len = 0, past = 0, head = 0, rotary = 0;
  bool packed = false;
  int64_t total() const { return past + len; }
};

Expected<GqaShape> gqa_shape(KernelContext& ctx) {
  const Tensor& q = ctx.input(0);
  GqaShape s;
  s.heads = ctx.node.attr_int("num_heads", 0);
  s.kv_heads = ctx.node.attr_int("kv_num_heads", 0);
  if (s.heads <= 0 || s.kv_heads <= 0 || s.heads % s.kv_heads != 0)
    return ctx.fail("num_heads {} must be a multiple of kv_num_heads {}", s.heads, s.kv_heads);
  if (q.rank() != 3) return ctx.fail("query {} must be [batch, sequence, hidden]", q.describe());
  s.packed = !ctx.has_input(1);
  if (s.packed != !ctx.has_input(2)) return ctx.fail("key and value come together");
  const int64_t width = s.packed ? s.heads + 2 * s.kv_heads : s.heads;
  if (q.dim(2) % width != 0) return ctx.fail("query {} is not {} heads wide", q.describe(), width);
  s.batch = q.dim(0);
  s.len = q.dim(1);
  s.head = q.dim(2) / width;
  for (size_t i = 1; i <= 2 && !s.packed; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != q.dtype() || t.rank() != 3 || t.dim(0) != s.batch || t.dim(1) != s.len ||
        t.dim(2) != s.kv_heads * s.head)
      return ctx.fail("{} {} must be [{}, {}, {}]", i == 1 ? "key" : "value", t.describe(), s.batch,
                      s.len, s.kv_heads * s.head);
  }
  if (ctx.has_input(3) != ctx.has_input(4))
    return ctx.fail("past_key and past_value come together");
  if (ctx.has_input(3)) {
    for (size_t i = 3; i <= 4; ++i) {
      const Tensor& p = ctx.input(i);
      if (p.dtype() != q.dtype() || p.rank() != 4 || p.dim(0) != s.batch ||
          p.dim(1) != s.kv_heads || p.dim(3) != s.head || p.dim(2) != ctx.input(3).dim(2))
        return ctx.fail("past {} must be [{}, {}, P, {}]", p.describe(), s.batch, s.kv_heads,
                        s.head);
    }
    s.past = ctx.input(3).dim(2);
  }
  // ORT 1.31 reads position_ids neither as the rotary positions nor as ignored (measured): refused.
  if (ctx.has_input(9)) return ctx.unsupported_here("position_ids");
  if (ctx.has_input(11) && (ctx.input(11).numel() != s.heads || ctx.input(11).dtype() != q.dtype()))
    return ctx.fail("head_sink {} must hold one {} per head ({})", ctx.input(11).describe(),
                    dtype_name(q.dtype()), s.heads);
  if (ctx.has_input(10)) {
    const Tensor& ab = ctx.input(10);
    if (ab.rank() != 4 || ab.dtype() != q.dtype() || (ab.dim(0) != 1 && ab.dim(0) != s.batch) ||
        (ab.dim(1) != 1 && ab.dim(1) != s.heads) || ab.dim(2) != s.len || ab.dim(3) != s.total())
      return ctx.fail("attention_bias {} must be [B or 1, N or 1, {}, {}]", ab.describe(), s.len,
                      s.total());
  }
  if (ctx.output_wanted(3)) return ctx.unsupported_here("output output_qk");
  // Lengths: every batch ends at total - 1, and the past is what precedes this step.
  if (!ctx.has_input(5) || !ctx.has_input(6))
    return ctx.fail("seqlens_k and total_sequence_length are required");
  const Tensor& seqlens = ctx.input(5);
  const Tensor& total = ctx.input(6);
  if (seqlens.dtype() != DType::kInt32 || seqlens.numel() != s.batch ||
      total.dtype() != DType::kInt32 || total.numel() != 1)
    return ctx.fail("seqlens_k {} must be int32 [{}] and total_sequence_length {} an int32 scalar",
                    seqlens.describe(), s.batch, total.describe());
  const int32_t t = total.data<int32_t>()[0];
  for (int64_t b = 0; b < s.batch; ++b)
    if (seqlens.data<int32_t>()[b] + 1 != t)
      return ctx.unsupported_here(
          "seqlens_k {} below total_sequence_length {} - 1 (padded batches)",
          seqlens.data<int32_t>()[b], t);
  if (t != s.total())
    return ctx.unsupported_here(
        "total_sequence_length {} other than past {} + sequence {} (a "
        "shared past/present buffer)",
        t, s.past, s.len);
  if (ctx.node.attr_int("do_rotary", 0) != 0) {
    if (!ctx.has_input(7) || !ctx.has_input(8))
      return ctx.fail("do_rotary needs cos_cache and sin_cache");
    const Tensor& cos = ctx.input(7);
    const Tensor& sin = ctx.input(8);
    if (cos.rank() != 2 || cos.shape() != sin.shape() || cos.dtype() != q.dtype() ||
        sin.dtype() != q.dtype() || cos.dim(0) < s.total() || 2 * cos.dim(1) > s.head)
      return ctx.fail("cos_cache {} and sin_cache {} must be [>= {}, <= {}]", cos.describe(),
                      sin.describe(), s.total(), s.head / 2);
    s.rotary = 2 * cos.dim(1);
  }
  return s;
}

// Rotates head vector v (length >= rotary) at position pos in place.
template <typename C, typename T>
void rotate(C* v, int64_t rotary, bool interleaved, const T* cos, const T* sin, int64_t pos) {
  const int64_t half = rotary / 2;
  for (int64_t i = 0; i < half; ++i) {
    const int64_t a = interleaved ? 2 * i : i, b = interleaved ? 2 * i + 1 : i + half;
    const C c = to_compute(cos[pos * half + i]), sn = to_compute(sin[pos * half + i]);
    const C x1 = v[a], x2 = v[b];
    v[a] = c * x1 - sn * x2;
    v[b] = sn * x1 + c * x2;
  }
}

template <typename T>
Status gqa_typed(KernelContext& ctx, const GqaShape& s) {
  using C = compute_t<T>;
  const Tensor& q = ctx.input(0);
  const int64_t H = s.head, N = s.heads, KN = s.kv_heads, L = s.total();
  const bool interleaved = ctx.node.attr_int("rotary_interleaved", 0) != 0;
  const T* cos = s.rotary ? ctx.input(7).data<T>() : nullptr;
  const T* sin = s.rotary ? ctx.input(8).data<T>() : nullptr;
  const int64_t row = s.packed ? (N + 2 * KN) * H : N * H;
  // Element d of head h of token i of batch b: of the packed query, or of key / value.
  auto at = [&](int which, int64_t b, int64_t i, int64_t h, int64_t d) -> C {
    if (s.packed) {
      const int64_t base = which == 0 ? 0 : (which == 1 ? N * H : (N + KN) * H);
      return to_compute(q.data<T>()[(b * s.len + i) * row + base + h * H + d]);
    }
    const T* p = ctx.input(static_cast<size_t>(which)).data<T>();
    return to_compute(p[(b * s.len + i) * (which == 0 ? N : KN) * H + h * H + d]);
  };
  // present_key / present_value: past, then the new K (rotated) and V.
  Tensor pk(q.dtype(), {s.batch, KN, L, H}), pv(q.dtype(), {s.batch, KN, L, H});
  std::vector<C> vec(static_cast<size_t>(H));
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t h = 0; h < KN; ++h) {
      for (int64_t j = 0; j < L; ++j) {
        T* k_out = pk.data<T>() + ((b * KN + h) * L + j) * H;
        T* v_out = pv.data<T>() + ((b * KN + h) * L + j) * H;
        if (j < s.past) {
          const int64_t off = ((b * KN + h) * s.past + j) * H;
          std::copy_n(ctx.input(3).data<T>() + off, H, k_out);
          std::copy_n(ctx.input(4).data<T>() + off, H, v_out);
          continue;
        }
        for (int64_t d = 0; d < H; ++d) vec[static_cast<size_t>(d)] = at(1, b, j - s.past, h, d);
        if (s.rotary) rotate(vec.data(), s.rotary, interleaved, cos, sin, j);
        for (int64_t d = 0; d < H; ++d) {
          k_out[d] = from_compute<T>(vec[static_cast<size_t>(d)]);
          v_out[d] = from_compute<T>(at(2, b, j - s.past, h, d));
        }
      }
    }
  }
  // scale 0 (or absent) means 1/sqrt(H), as ORT reads it.
  const float scale_attr = ctx.node.attr_float("scale", 0.0f);
  const C scale = scale_attr != 0.0f ? static_cast<C>(scale_attr)
                                     : static_cast<C>(1.0 / std::sqrt(static_cast<double>(H)));
  const C softcap = static_cast<C>(ctx.node.attr_float("softcap", 0.0f));
  const int64_t window = ctx.node.attr_int("local_window_size", -1);
  const bool smooth = ctx.node.attr_int("smooth_softmax", 0) != 0;
  const Tensor* ab = ctx.has_input(10) ? &ctx.input(10) : nullptr;
  const T* sink = ctx.has_input(11) ? ctx.input(11).data<T>() : nullptr;
  Tensor& y = ctx.output(0, q.dtype(), {s.batch, s.len, N * H});
  std::vector<C> qs(static_cast<size_t>(s.len * H)), kt(static_cast<size_t>(H * L)),
      vv(static_cast<size_t>(L * H)), scores(static_cast<size_t>(s.len * L)),
      out(static_cast<size_t>(s.len * H));
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t kh = 0; kh < KN; ++kh) {
      // This kv head's keys and values, read once for the N / kvN query heads it serves.
      for (int64_t j = 0; j < L; ++j) {
        for (int64_t d = 0; d < H; ++d) {
          kt[static_cast<size_t>(d * L + j)] =
              to_compute(pk.data<T>()[((b * KN + kh) * L + j) * H + d]);
          vv[static_cast<size_t>(j * H + d)] =
              to_compute(pv.data<T>()[((b * KN + kh) * L + j) * H + d]);
        }
      }
      for (int64_t h = kh * (N / KN); h < (kh + 1) * (N / KN); ++h) {
        for (int64_t i = 0; i < s.len; ++i) {
          C* qv = qs.data() + i * H;
          for (int64_t d = 0; d < H; ++d) qv[d] = rounded_to<T>(at(0, b, i, h, d));
          if (s.rotary) {
            rotate(qv, s.rotary, interleaved, cos, sin, s.past + i);
            for (int64_t d = 0; d < H; ++d) qv[d] = rounded_to<T>(qv[d]);
          }
        }
        float_gemm<C>(ctx.numerics, s.len, L, H, qs.data(), H, 1, kt.data(), L, scores.data(), L);
        // smooth_softmax: an extra logit of 0 in the denominator; head_sink: one of sink[h].
        const C extra = sink ? to_compute(sink[h]) : C(0);
        for (int64_t i = 0; i < s.len; ++i) {
          C* r = scores.data() + i * L;
          // Causal: keys first..last; a sliding window keeps the last `window` of them (as ORT
          // 1.31 counts it: the query's own key among them).
          const int64_t last = s.past + i;
          const int64_t first = window > 0 ? std::max<int64_t>(0, last - window + 1) : 0;
          for (int64_t j = first; j <= last; ++j) {
            C x = r[j] * scale;
            if (softcap > C(0)) x = softcap * math_tanh(x / softcap);
            if (ab) x += to_compute(ab->data<T>()[attention_bias_offset(*ab, b, h, i, j)]);
            r[j] = x;
          }
          softmax_span<C>(ctx.numerics, r, L, first, last, smooth || sink ? &extra : nullptr);
        }
        float_gemm<C>(ctx.numerics, s.len, H, L, scores.data(), L, 1, vv.data(), H, out.data(), H);
        T* py = y.data<T>();
        for (int64_t i = 0; i < s.len; ++i)
          for (int64_t d = 0; d < H; ++d)
            py[(b * s.len + i) * N * H + h * H + d] =
                from_compute<T>(out[static_cast<size_t>(i * H + d)]);
      }
    }
  }
  if (ctx.output_wanted(1)) ctx.set_output(1, std::move(pk));
  if (ctx.output_wanted(2)) ctx.set_output(2, std::move(pv));
  return Status::Ok();
}

Status group_query_attention(KernelContext& ctx) {
  IG_ASSIGN_OR_RETURN(const GqaShape s, gqa_shape(ctx));
  return dispatch_float(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return gqa_typed<T>(ctx, s);
  });
}

IG_REGISTER_KERNEL("com.microsoft", "GroupQueryAttention", 1, kMaxOpset, group_query_attention);

}  // namespace
}  // namespace ig

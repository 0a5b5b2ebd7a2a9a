// RotaryEmbedding (ai.onnx 23), as the numpy algorithm of its definition reads: X is
// [batch, num_heads, seq, head] or [batch, seq, hidden] (hidden = num_heads * head); the first
// rotary_embedding_dim values of each head are rotated, in two halves or interleaved pairs, by the
// cos/sin caches ([batch, seq, rotary/2], or [max_position, rotary/2] indexed by position_ids),
// the rest pass through. Every product and sum rounds to X's type, as numpy computes it.
// com.microsoft RotaryEmbedding (ONNX Runtime's contrib schema) is the same rotation with its
// inputs in another order (input, position_ids, cos_cache, sin_cache): position_ids [batch, seq],
// or [1], an offset added to each token's index; a 3-D input without num_heads has heads of the
// caches' rotary width; packed batching is refused.
#include "backends/ref/nn_util.h"

namespace ig {
namespace {

struct RopeGeometry {
  int64_t batch = 0, seq = 0, heads = 0, head = 0, rotary = 0;
  bool four_d = false;
  int64_t x_offset(int64_t b, int64_t s, int64_t h, int64_t d) const {
    return four_d ? ((b * heads + h) * seq + s) * head + d
                  : (b * seq + s) * heads * head + h * head + d;
  }
};

// cache_head: the head size a 3-D X without num_heads has (0: none; com.microsoft's schema).
Expected<RopeGeometry> rope_geometry(KernelContext& ctx, const Tensor& x, int64_t cache_head = 0) {
  RopeGeometry g;
  int64_t num_heads = ctx.node.attr_int("num_heads", 0);
  if (num_heads <= 0 && cache_head > 0 && x.rank() == 3 && x.dim(2) % cache_head == 0)
    num_heads = x.dim(2) / cache_head;
  if (x.rank() == 4) {
    g = {x.dim(0), x.dim(2), x.dim(1), x.dim(3), 0, true};
  } else if (x.rank() == 3) {
    if (num_heads <= 0 || x.dim(2) % num_heads != 0)
      return ctx.fail("a 3-D X {} needs num_heads dividing its last dim, not {}", x.describe(),
                      num_heads);
    g = {x.dim(0), x.dim(1), num_heads, x.dim(2) / num_heads, 0, false};
  } else {
    return ctx.fail("X {} must be 3-D or 4-D", x.describe());
  }
  g.rotary = ctx.node.attr_int("rotary_embedding_dim", 0);
  if (g.rotary == 0) g.rotary = g.head;
  if (g.rotary < 0 || g.rotary > g.head || g.rotary % 2 != 0)
    return ctx.fail("rotary_embedding_dim {} must be even and at most the head size {}", g.rotary,
                    g.head);
  return g;
}

// The operator's inputs, wherever its schema puts them; offset: position_ids is one number added
// to each token's index (com.microsoft).
struct RopeInputs {
  const Tensor* x = nullptr;
  const Tensor* cos = nullptr;
  const Tensor* sin = nullptr;
  const Tensor* pos = nullptr;
  bool offset = false;
};

template <typename T>
Status rope_typed(KernelContext& ctx, const RopeGeometry& g, const RopeInputs& in) {
  const Tensor& x = *in.x;
  const Tensor& cos = *in.cos;
  const Tensor& sin = *in.sin;
  const Tensor* pos = in.pos;
  const int64_t half = g.rotary / 2;
  for (const Tensor* c : {&cos, &sin}) {
    if (c->dtype() != x.dtype() || c->rank() < 1 || c->shape().back() != half)
      return ctx.fail("cos/sin cache {} must be {} with a last dim of {}", c->describe(),
                      dtype_name(x.dtype()), half);
  }
  if (pos && in.offset) {
    if (cos.rank() != 2) return ctx.fail("cos/sin caches {} must be 2-D", cos.describe());
  } else if (pos) {
    if (pos->numel() != g.batch * g.seq || cos.rank() != 2)
      return ctx.fail("position_ids {} must be [batch, seq] = [{}, {}] with 2-D caches",
                      pos->describe(), g.batch, g.seq);
  } else if (cos.numel() != g.batch * g.seq * half || sin.numel() != cos.numel()) {
    return ctx.fail("without position_ids the caches must be [batch, seq, {}], not {}", half,
                    cos.describe());
  }
  using C = compute_t<T>;
  auto in_t = [](C v) { return rounded_to<T>(v); };  // numpy rounds every op to T
  const T* px = x.data<T>();
  const T* pc = cos.data<T>();
  const T* ps = sin.data<T>();
  T* py = ctx.output(0, x.dtype(), x.shape()).template data<T>();
  const bool interleaved = ctx.node.attr_int("interleaved", 0) != 0;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t s = 0; s < g.seq; ++s) {
      int64_t row = b * g.seq + s;
      if (pos) {
        row = in.offset ? pos->as_int64(0) + s : pos->as_int64(b * g.seq + s);
        if (row < 0 || row >= cos.dim(0))
          return ctx.fail("position_ids[{}, {}] = {} is outside the caches' {} rows", b, s, row,
                          cos.dim(0));
      }
      for (int64_t h = 0; h < g.heads; ++h) {
        for (int64_t j = 0; j < half; ++j) {
          const int64_t i1 = g.x_offset(b, s, h, interleaved ? 2 * j : j);
          const int64_t i2 = g.x_offset(b, s, h, interleaved ? 2 * j + 1 : j + half);
          const C x1 = to_compute(px[i1]), x2 = to_compute(px[i2]);
          const C c = to_compute(pc[row * half + j]), sn = to_compute(ps[row * half + j]);
          py[i1] = from_compute<T>(in_t(c * x1) - in_t(sn * x2));
          py[i2] = from_compute<T>(in_t(sn * x1) + in_t(c * x2));
        }
        for (int64_t d = g.rotary; d < g.head; ++d)
          py[g.x_offset(b, s, h, d)] = px[g.x_offset(b, s, h, d)];
      }
    }
  }
  return Status::Ok();
}

Status rotary_embedding(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(const RopeGeometry g, rope_geometry(ctx, x));
  const RopeInputs in{&x, &ctx.input(1), &ctx.input(2), ctx.has_input(3) ? &ctx.input(3) : nullptr};
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return rope_typed<T>(ctx, g, in);
  });
}

Status ms_rotary_embedding(KernelContext& ctx) {
  if (ctx.node.attr_int("is_packed_batching", 0) != 0)
    return ctx.unsupported_here("is_packed_batching");
  const Tensor& x = ctx.input(0);
  const Tensor& pos = ctx.input(1);
  const Tensor& cos = ctx.input(2);
  if (cos.rank() != 2)
    return ctx.fail("cos_cache {} must be [max_position, rotary / 2]", cos.describe());
  IG_ASSIGN_OR_RETURN(const RopeGeometry g, rope_geometry(ctx, x, 2 * cos.dim(1)));
  if (pos.dtype() != DType::kInt64)
    return ctx.fail("position_ids {} must be int64", pos.describe());
  const RopeInputs in{&x, &cos, &ctx.input(3), &pos, pos.numel() == 1 && g.batch * g.seq != 1};
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return rope_typed<T>(ctx, g, in);
  });
}

IG_REGISTER_KERNEL("", "RotaryEmbedding", 23, kMaxOpset, rotary_embedding);
IG_REGISTER_KERNEL("com.microsoft", "RotaryEmbedding", 1, kMaxOpset, ms_rotary_embedding);

}  // namespace
}  // namespace ig

// ONNX Runtime's fused normalizations, as its contrib operator schemas define them (the graphs its
// transformer optimizer and GenAI builder write):
//  - SkipLayerNormalization (com.microsoft): S = input + skip (+ bias), then LayerNormalization of
//    S over the last axis with gamma (and beta);
//  - SkipSimplifiedLayerNormalization (com.microsoft): the same S, then RMS normalization with
//    gamma;
//  - SimplifiedLayerNormalization (ORT registers it in the ONNX domain, since 1): RMS
//    normalization of X over [axis, rank) with scale;
//  - EmbedLayerNormalization (com.microsoft, BERT's embeddings): word[input_ids] +
//    position[position_ids] (+ segment[segment_ids]), LayerNormalization with gamma and beta;
//    mask_index is each batch's count of mask ones (0 without a mask), embedding_sum the sum.
// Statistics in float (double for double tensors); outputs: Y, mean (LayerNormalization only),
// inv_std_var, and for the skip forms S itself (input_skip_bias_sum).
#include "backends/ref/nn_util.h"

namespace ig {
namespace {

// A parameter of one value per element of the normalized axis (length `h`).
Status expect_per_hidden(const KernelContext& ctx, const Tensor& p, const char* what, DType dtype,
                         int64_t h) {
  if (p.dtype() != dtype || p.numel() != h) {
    return ctx.fail("{} {} must be {} with {} values (the input's last dimension)", what,
                    p.describe(), dtype_name(dtype), h);
  }
  return Status::Ok();
}

// Normalizes `rows` rows of `h` values read by load(r, i) into y (X's type) and the optional
// statistics; rms: RMS normalization (no mean, no beta).
template <typename T, typename U, typename Load>
void normalize_rows(KernelContext& ctx, int64_t rows, int64_t h, bool rms, Load&& load,
                    const T* gamma, const T* beta, T* y, U* mean_out, U* inv_out) {
  using C = compute_t<T>;
  const U eps = static_cast<U>(ctx.node.attr_float("epsilon", 1e-5f));
  for (int64_t r = 0; r < rows; ++r) {
    auto value = [&](int64_t i) { return static_cast<U>(load(r, i)); };
    U mean{0}, inv{0};
    if (rms) {
      // In the platform's order, as mean_variance sums for the layer normalization below.
      const U sq =
          ordered_sum<U>(current_numerics(), h, [&](int64_t i) { return value(i) * value(i); });
      inv = U{1} / std::sqrt(sq / static_cast<U>(h) + eps);
    } else {
      U var{0};
      std::tie(mean, var) = mean_variance<U>(h, value);
      inv = U{1} / std::sqrt(var + eps);
    }
    if (mean_out) mean_out[r] = mean;
    if (inv_out) inv_out[r] = inv;
    for (int64_t i = 0; i < h; ++i) {
      const C normed = static_cast<C>((value(i) - mean) * inv);
      C v = normed * to_compute(gamma[i]);
      if (beta) v += to_compute(beta[i]);
      y[r * h + i] = from_compute<T>(v);
    }
  }
}

Shape stats_shape(Shape s) {
  if (!s.empty()) s.back() = 1;
  return s;
}

// SkipLayerNormalization (rms = false) and SkipSimplifiedLayerNormalization (rms = true).
Status skip_norm(KernelContext& ctx, bool rms) {
  const Tensor& x = ctx.input(0);
  const Tensor& skip = ctx.input(1);
  if (x.rank() < 2) return ctx.fail("input {} must have rank 2 or 3", x.describe());
  const int64_t h = x.dim(-1);
  if (skip.dtype() != x.dtype() || skip.dim(-1) != h || skip.numel() == 0 ||
      x.numel() % skip.numel() != 0) {
    return ctx.fail("skip {} must be {} with the input's last dimension {} and broadcast to {}",
                    skip.describe(), dtype_name(x.dtype()), h, x.describe());
  }
  const size_t bias_index = rms ? 3 : 4;
  const Tensor* beta = !rms && ctx.has_input(3) ? &ctx.input(3) : nullptr;
  const Tensor* bias = ctx.has_input(bias_index) ? &ctx.input(bias_index) : nullptr;
  IG_RETURN_IF_ERROR(expect_per_hidden(ctx, ctx.input(2), "gamma", x.dtype(), h));
  if (beta) IG_RETURN_IF_ERROR(expect_per_hidden(ctx, *beta, "beta", x.dtype(), h));
  if (bias) IG_RETURN_IF_ERROR(expect_per_hidden(ctx, *bias, "bias", x.dtype(), h));
  if (rms && ctx.output_wanted(1))
    return ctx.unsupported_here("output 1 (mean): the simplified form computes no mean");
  const int64_t rows = x.numel() / h;
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using U = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const DType stat = std::is_same_v<U, double> ? DType::kFloat64 : DType::kFloat32;
    const T* px = x.data<T>();
    const T* ps = skip.data<T>();
    const T* pbias = bias ? bias->data<T>() : nullptr;
    // input + skip, then + bias, each rounded to T as separate additions would be.
    Tensor scratch;  // the sum, where the graph does not ask for it as output 3
    T* sum = ctx.output_wanted(3) ? ctx.output(3, x.dtype(), x.shape()).template data<T>()
                                  : (scratch = Tensor(x.dtype(), x.shape())).template data<T>();
    const int64_t skip_n = skip.numel();
    for (int64_t i = 0; i < x.numel(); ++i) {
      T v = from_compute<T>(to_compute(px[i]) + to_compute(ps[i % skip_n]));
      if (pbias) v = from_compute<T>(to_compute(v) + to_compute(pbias[i % h]));
      sum[i] = v;
    }
    U* mean = !rms && ctx.output_wanted(1)
                  ? ctx.output(1, stat, stats_shape(x.shape())).template data<U>()
                  : nullptr;
    U* inv = ctx.output_wanted(2) ? ctx.output(2, stat, stats_shape(x.shape())).template data<U>()
                                  : nullptr;
    T* y = ctx.output(0, x.dtype(), x.shape()).template data<T>();
    normalize_rows<T, U>(
        ctx, rows, h, rms, [&](int64_t r, int64_t i) { return to_compute(sum[r * h + i]); },
        ctx.input(2).data<T>(), beta ? beta->data<T>() : nullptr, y, mean, inv);
    return Status::Ok();
  });
}

Status skip_layer_norm(KernelContext& ctx) { return skip_norm(ctx, false); }
Status skip_simplified_layer_norm(KernelContext& ctx) { return skip_norm(ctx, true); }

// SimplifiedLayerNormalization: RMS normalization over [axis, rank) with a scale of that size.
Status simplified_layer_norm(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(int axis, normalize_axis(ctx, ctx.node.attr_int("axis", -1), x.rank()));
  const int64_t h = shape_numel(Shape(x.shape().begin() + axis, x.shape().end()));
  IG_RETURN_IF_ERROR(expect_per_hidden(ctx, ctx.input(1), "scale", x.dtype(), h));
  const int64_t rows = h > 0 ? x.numel() / h : 0;
  Shape stat_shape = x.shape();
  for (size_t d = static_cast<size_t>(axis); d < stat_shape.size(); ++d) stat_shape[d] = 1;
  return dispatch_float(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using U = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const DType stat = std::is_same_v<U, double> ? DType::kFloat64 : DType::kFloat32;
    const T* px = x.data<T>();
    U* inv = ctx.output_wanted(1) ? ctx.output(1, stat, stat_shape).template data<U>() : nullptr;
    T* y = ctx.output(0, x.dtype(), x.shape()).template data<T>();
    normalize_rows<T, U>(
        ctx, rows, h, true, [&](int64_t r, int64_t i) { return to_compute(px[r * h + i]); },
        ctx.input(1).data<T>(), nullptr, y, static_cast<U*>(nullptr), inv);
    return Status::Ok();
  });
}

// The row of `table` [rows, h] an index tensor names at element i, or an error naming it.
Expected<int64_t> table_row(const KernelContext& ctx, const Tensor& ids, int64_t i,
                            const Tensor& table, const char* what) {
  const int64_t r = ids.as_int64(i);
  if (r < 0 || r >= table.dim(0))
    return ctx.fail("{}[{}] = {} is outside the {} rows of its table", what, i, r, table.dim(0));
  return r;
}

Status embed_layer_norm(KernelContext& ctx) {
  const Tensor& ids = ctx.input(0);
  const Tensor* segment_ids = ctx.has_input(1) ? &ctx.input(1) : nullptr;
  const Tensor& word = ctx.input(2);
  const Tensor& position = ctx.input(3);
  const Tensor* segment = ctx.has_input(4) ? &ctx.input(4) : nullptr;
  const Tensor* mask = ctx.has_input(7) ? &ctx.input(7) : nullptr;
  const Tensor* position_ids = ctx.has_input(8) ? &ctx.input(8) : nullptr;
  if (ids.rank() != 2 || !is_integer(ids.dtype()))
    return ctx.fail("input_ids {} must be integer [batch, sequence]", ids.describe());
  const int64_t batch = ids.dim(0), seq = ids.dim(1);
  if (word.rank() != 2) return ctx.fail("word_embedding {} must be 2-D", word.describe());
  const int64_t h = word.dim(1);
  for (const Tensor* t : {&position, segment}) {
    if (t && (t->rank() != 2 || t->dim(1) != h || t->dtype() != word.dtype()))
      return ctx.fail("embedding {} must be {} [rows, {}]", t->describe(), dtype_name(word.dtype()),
                      h);
  }
  if ((segment_ids == nullptr) != (segment == nullptr))
    return ctx.fail("segment_ids and segment_embedding come together");
  for (const Tensor* t : {segment_ids, mask}) {
    if (t && t->shape() != ids.shape())
      return ctx.fail("{} must have the shape of input_ids {}", t->describe(), ids.describe());
  }
  if (position_ids && position_ids->numel() != seq && position_ids->numel() != batch * seq)
    return ctx.fail("position_ids {} must be [1, {}] or [{}, {}]", position_ids->describe(), seq,
                    batch, seq);
  IG_RETURN_IF_ERROR(expect_per_hidden(ctx, ctx.input(5), "gamma", word.dtype(), h));
  IG_RETURN_IF_ERROR(expect_per_hidden(ctx, ctx.input(6), "beta", word.dtype(), h));
  if (ctx.output_wanted(1)) {
    int32_t* mask_index = ctx.output(1, DType::kInt32, {batch}).template data<int32_t>();
    for (int64_t b = 0; b < batch; ++b) {
      int32_t n = 0;
      for (int64_t s = 0; mask && s < seq; ++s) n += mask->as_int64(b * seq + s) != 0 ? 1 : 0;
      mask_index[b] = n;
    }
  }
  return dispatch_float(word.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    using U = std::conditional_t<std::is_same_v<T, double>, double, float>;
    // The embeddings' sum per token, rounded to T as each addition would be.
    Tensor scratch;  // the sum, where the graph does not ask for it as output 2
    T* sum = ctx.output_wanted(2)
                 ? ctx.output(2, word.dtype(), {batch, seq, h}).template data<T>()
                 : (scratch = Tensor(word.dtype(), {batch, seq, h})).template data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t i = b * seq + s;
        IG_ASSIGN_OR_RETURN(const int64_t w, table_row(ctx, ids, i, word, "input_ids"));
        int64_t p = s;
        if (position_ids) {
          const int64_t at = position_ids->numel() == seq ? s : i;
          IG_ASSIGN_OR_RETURN(p, table_row(ctx, *position_ids, at, position, "position_ids"));
        } else if (s >= position.dim(0)) {
          return ctx.fail("token {} has no row in position_embedding {}", s, position.describe());
        }
        int64_t g = 0;
        if (segment) {
          IG_ASSIGN_OR_RETURN(g, table_row(ctx, *segment_ids, i, *segment, "segment_ids"));
        }
        for (int64_t d = 0; d < h; ++d) {
          T v = from_compute<T>(to_compute(word.data<T>()[w * h + d]) +
                                to_compute(position.data<T>()[p * h + d]));
          if (segment)
            v = from_compute<T>(to_compute(v) + to_compute(segment->data<T>()[g * h + d]));
          sum[i * h + d] = v;
        }
      }
    }
    T* y = ctx.output(0, word.dtype(), {batch, seq, h}).template data<T>();
    normalize_rows<T, U>(
        ctx, batch * seq, h, false,
        [&](int64_t r, int64_t d) { return to_compute(sum[r * h + d]); }, ctx.input(5).data<T>(),
        ctx.input(6).data<T>(), y, static_cast<U*>(nullptr), static_cast<U*>(nullptr));
    return Status::Ok();
  });
}

IG_REGISTER_KERNEL("com.microsoft", "SkipLayerNormalization", 1, kMaxOpset, skip_layer_norm);
IG_REGISTER_KERNEL("com.microsoft", "EmbedLayerNormalization", 1, kMaxOpset, embed_layer_norm);
IG_REGISTER_KERNEL("com.microsoft", "SkipSimplifiedLayerNormalization", 1, kMaxOpset,
                   skip_simplified_layer_norm);
IG_REGISTER_KERNEL("", "SimplifiedLayerNormalization", 1, kMaxOpset, simplified_layer_norm);

}  // namespace
}  // namespace ig

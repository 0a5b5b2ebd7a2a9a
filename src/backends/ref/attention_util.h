// What ONNX Runtime's attention operators (MultiHeadAttention, Attention, GroupQueryAttention)
// compute alike on a row of scores: the softmax over the attended keys, and the offset of an
// attention bias [B or 1, N or 1, S, T] broadcast over batch and heads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "backends/ref/nn_util.h"
#include "backends/ref/numerics/math.h"

namespace ig {

// row[first..last] = the softmax of those logits, row[j] = 0 elsewhere in [0, len); `extra`, when
// given, is one more logit of the denominator (a smooth softmax's 0, a head sink). The sum runs in
// the platform's order.
template <typename C>
void softmax_span(const Numerics& num, C* row, int64_t len, int64_t first, int64_t last,
                  const C* extra) {
  C mx = -std::numeric_limits<C>::infinity();
  for (int64_t j = first; j <= last; ++j) mx = std::max(mx, row[j]);
  if (extra) mx = std::max(mx, *extra);
  for (int64_t j = 0; j < len; ++j) row[j] = j >= first && j <= last ? math_exp(row[j] - mx) : C(0);
  C sum = ordered_sum<C>(num, last + 1 - first, [&](int64_t j) { return row[first + j]; });
  if (extra) sum += math_exp(*extra - mx);
  for (int64_t j = first; j <= last; ++j) row[j] /= sum;
}

// The element of attention bias `ab` [B or 1, N or 1, S, T] for batch b, head h, query i, key j.
inline int64_t attention_bias_offset(const Tensor& ab, int64_t b, int64_t h, int64_t i, int64_t j) {
  const int64_t b0 = ab.dim(0) == 1 ? 0 : b, h0 = ab.dim(1) == 1 ? 0 : h;
  return ((b0 * ab.dim(1) + h0) * ab.dim(2) + i) * ab.dim(3) + j;
}

}  // namespace ig

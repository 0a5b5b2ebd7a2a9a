// Samples along a tensor's first axis: what `invariance` cuts a batch into and compares.
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace ig {

// Rows [begin, begin + count) of `t` along axis 0, as a new tensor of shape [count, ...].
// Requires rank >= 1 and the range inside dim 0.
Tensor batch_slice(const Tensor& t, int64_t begin, int64_t count);

// Whether row `a_row` of `a` and row `b_row` of `b` hold the same bits (same dtype and trailing
// dims required; false otherwise).
bool rows_bitwise_equal(const Tensor& a, int64_t a_row, const Tensor& b, int64_t b_row);

}  // namespace ig

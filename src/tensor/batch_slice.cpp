#include "tensor/batch_slice.h"

#include <algorithm>
#include <cstring>

namespace ig {

namespace {

int64_t row_elements(const Tensor& t) { return t.dim(0) == 0 ? 0 : t.numel() / t.dim(0); }

}  // namespace

Tensor batch_slice(const Tensor& t, int64_t begin, int64_t count) {
  Shape shape = t.shape();
  shape[0] = count;
  Tensor out(t.dtype(), shape);
  const int64_t row = row_elements(t);
  if (t.dtype() == DType::kString) {
    const auto& from = t.strings();
    std::copy(from.begin() + begin * row, from.begin() + (begin + count) * row,
              out.strings().begin());
    return out;
  }
  const size_t row_bytes = static_cast<size_t>(row) * dtype_size(t.dtype());
  if (row_bytes * static_cast<size_t>(count) > 0)
    std::memcpy(out.raw(), t.raw() + static_cast<size_t>(begin) * row_bytes,
                row_bytes * static_cast<size_t>(count));
  return out;
}

bool rows_bitwise_equal(const Tensor& a, int64_t a_row, const Tensor& b, int64_t b_row) {
  if (a.dtype() != b.dtype() || a.rank() < 1 || b.rank() < 1) return false;
  if (!std::equal(a.shape().begin() + 1, a.shape().end(), b.shape().begin() + 1, b.shape().end()))
    return false;
  const int64_t row = row_elements(a);
  if (a.dtype() == DType::kString)
    return std::equal(a.strings().begin() + a_row * row, a.strings().begin() + (a_row + 1) * row,
                      b.strings().begin() + b_row * row);
  const size_t row_bytes = static_cast<size_t>(row) * dtype_size(a.dtype());
  if (row_bytes == 0) return true;
  return std::memcmp(a.raw() + static_cast<size_t>(a_row) * row_bytes,
                     b.raw() + static_cast<size_t>(b_row) * row_bytes, row_bytes) == 0;
}

}  // namespace ig

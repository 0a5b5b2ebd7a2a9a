#include "analysis/compare/compare.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

namespace ig {

int remaining_precision_bits(uint64_t a, uint64_t b, int mantissa_bits, int exponent_bits) {
  if (a == b) return mantissa_bits;
  const uint64_t mant_mask = (uint64_t{1} << mantissa_bits) - 1;
  const uint64_t high_a = a >> mantissa_bits;  // sign and exponent fields
  const uint64_t high_b = b >> mantissa_bits;
  if (high_a != high_b) return 0;
  const uint64_t diff = (a ^ b) & mant_mask;
  // Leading zeros of diff within the mantissa field = leading agreeing bits.
  return std::countl_zero(diff) - (64 - mantissa_bits);
}

uint64_t float_bits(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat16:
      return t.data<Float16>()[i].bits;
    case DType::kBFloat16:
      return t.data<BFloat16>()[i].bits;
    case DType::kFloat32:
      return std::bit_cast<uint32_t>(t.data<float>()[i]);
    case DType::kFloat64:
      return std::bit_cast<uint64_t>(t.data<double>()[i]);
    default:
      return 0;
  }
}

std::optional<uint64_t> ulp_distance_bits(uint64_t a, uint64_t b, int mantissa_bits,
                                          int exponent_bits) {
  const int magnitude_bits = mantissa_bits + exponent_bits;
  const uint64_t mag_mask =
      magnitude_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << magnitude_bits) - 1;
  const uint64_t exp_all = ((uint64_t{1} << exponent_bits) - 1) << mantissa_bits;
  const uint64_t mant_mask = (uint64_t{1} << mantissa_bits) - 1;
  auto is_nan = [&](uint64_t x) { return (x & exp_all) == exp_all && (x & mant_mask) != 0; };
  if (is_nan(a) || is_nan(b)) return std::nullopt;
  // Sign-magnitude onto a line where adjacent values differ by one (both zeros sit at 0).
  const uint64_t mag_a = a & mag_mask;
  const uint64_t mag_b = b & mag_mask;
  const bool neg_a = (a >> magnitude_bits) & 1;
  const bool neg_b = (b >> magnitude_bits) & 1;
  if (neg_a != neg_b) return mag_a + mag_b;  // each is below 2^63: no overflow
  return mag_a > mag_b ? mag_a - mag_b : mag_b - mag_a;
}

namespace {

int ulp_bucket(uint64_t ulp) {
  if (ulp == 0) return 0;
  const int k = 64 - std::countl_zero(ulp);  // ulp in [2^(k-1), 2^k)
  return std::min(k, 33);
}

std::vector<int64_t> top_k(const Tensor& t, int64_t row, int64_t cols, int64_t k) {
  std::vector<int64_t> idx(static_cast<size_t>(cols));
  std::iota(idx.begin(), idx.end(), 0);
  auto value = [&](int64_t c) {
    const double v = t.as_double(row * cols + c);
    return std::isnan(v) ? -INFINITY : v;
  };
  k = std::min(k, cols);
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int64_t x, int64_t y) {
    const double vx = value(x);
    const double vy = value(y);
    return vx > vy || (vx == vy && x < y);
  });
  idx.resize(static_cast<size_t>(k));
  return idx;
}

}  // namespace

Comparison compare_tensors(const Tensor& a, const Tensor& b) {
  Comparison c;
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    c.comparable = false;
    c.why_not = a.describe() + " vs " + b.describe();
    return c;
  }
  c.identical = a.bitwise_equal(b);
  c.elements = a.numel();
  const DType dt = a.dtype();
  if (dt == DType::kString) {
    for (int64_t i = 0; i < c.elements; ++i) c.differing += a.strings()[i] != b.strings()[i];
    c.fraction_differing =
        c.elements ? static_cast<double>(c.differing) / static_cast<double>(c.elements) : 0;
    return c;
  }
  const bool floating = is_float(dt);
  const auto& info = dtype_info(dt);
  const size_t esize = dtype_size(dt);
  if (floating) {
    c.mantissa_bits = info.mantissa_bits;
    c.remaining_precision = info.mantissa_bits;
  }
  const bool numeric = floating || is_integer(dt) || dt == DType::kBool;
  double dot = 0, norm_a = 0, norm_b = 0;
  for (int64_t i = 0; i < c.elements; ++i) {
    const bool same_bits = std::memcmp(a.raw() + i * esize, b.raw() + i * esize, esize) == 0;
    if (!same_bits) ++c.differing;
    if (!numeric) continue;
    const double x = a.as_double(i);
    const double y = b.as_double(i);
    if (floating) {
      const uint64_t bx = float_bits(a, i);
      const uint64_t by = float_bits(b, i);
      c.remaining_precision =
          std::min(c.remaining_precision,
                   remaining_precision_bits(bx, by, info.mantissa_bits, info.exponent_bits));
      const bool nx = std::isnan(x), ny = std::isnan(y);
      const bool ix = std::isinf(x), iy = std::isinf(y);
      c.nan_count_a += nx;
      c.nan_count_b += ny;
      c.inf_count_a += ix;
      c.inf_count_b += iy;
      if (nx != ny) c.nan_positions_agree = false;
      if (ix != iy || (ix && iy && x != y)) c.inf_positions_agree = false;
      if (auto u = ulp_distance_bits(bx, by, info.mantissa_bits, info.exponent_bits)) {
        c.max_ulp = std::max(c.max_ulp, *u);
        ++c.ulp_histogram[static_cast<size_t>(ulp_bucket(*u))];
      }
      if (nx || ny || ix || iy) continue;
    }
    const double abs_err = std::fabs(x - y);
    c.max_abs_error = std::max(c.max_abs_error, abs_err);
    if (y != 0) c.max_rel_error = std::max(c.max_rel_error, abs_err / std::fabs(y));
    dot += x * y;
    norm_a += x * x;
    norm_b += y * y;
  }
  c.fraction_differing =
      c.elements ? static_cast<double>(c.differing) / static_cast<double>(c.elements) : 0;
  if (norm_a > 0 && norm_b > 0) {
    c.cosine_similarity = dot / (std::sqrt(norm_a) * std::sqrt(norm_b));
  } else {
    c.cosine_similarity = (norm_a == 0 && norm_b == 0) ? 1.0 : 0.0;
  }
  if (numeric && a.rank() >= 1 && a.numel() > 0) {
    const int64_t cols = a.dim(-1);
    c.rows = cols ? a.numel() / cols : 0;
    double overlap = 0;
    for (int64_t r = 0; r < c.rows; ++r) {
      const auto ta = top_k(a, r, cols, 5);
      const auto tb = top_k(b, r, cols, 5);
      if (ta[0] != tb[0]) ++c.top1_flips;
      int64_t common = 0;
      for (int64_t x : ta) common += std::count(tb.begin(), tb.end(), x);
      overlap += static_cast<double>(common) / static_cast<double>(ta.size());
    }
    c.top5_overlap = c.rows ? overlap / static_cast<double>(c.rows) : 1;
  }
  return c;
}

namespace {

// The remaining precision of two arrays of raw float bits (Bits: the dtype's storage width).
template <typename Bits>
int raw_remaining_precision(const unsigned char* a, const unsigned char* b, int64_t n,
                            const DTypeInfo& info) {
  int rp = info.mantissa_bits;
  for (int64_t i = 0; i < n && rp > 0; ++i) {
    Bits x, y;
    std::memcpy(&x, a + i * sizeof(Bits), sizeof(Bits));
    std::memcpy(&y, b + i * sizeof(Bits), sizeof(Bits));
    if (x != y)
      rp = std::min(rp, remaining_precision_bits(x, y, info.mantissa_bits, info.exponent_bits));
  }
  return rp;
}

}  // namespace

int tensor_remaining_precision(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape() || !is_float(a.dtype())) return -1;
  const auto& info = dtype_info(a.dtype());
  const auto* x = reinterpret_cast<const unsigned char*>(a.raw());
  const auto* y = reinterpret_cast<const unsigned char*>(b.raw());
  switch (dtype_size(a.dtype())) {
    case 2:
      return raw_remaining_precision<uint16_t>(x, y, a.numel(), info);
    case 4:
      return raw_remaining_precision<uint32_t>(x, y, a.numel(), info);
    default:
      return raw_remaining_precision<uint64_t>(x, y, a.numel(), info);
  }
}

}  // namespace ig

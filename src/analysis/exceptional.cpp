#include "analysis/exceptional.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/enum_names.h"
#include "tensor/as_doubles.h"
#include "tensor/convert.h"

namespace ig {

namespace {

constexpr auto kNames = std::to_array<const char*>({"as-oracle", "propagate", "overflow-as-oracle",
                                                    "zero-sign", "flush", "differs-from-oracle",
                                                    "no-overflow", "inf", "ignore", "nan"});
static_assert(names_cover_enum<Exceptional>(kNames), "one distinct name per class");

// p: the platform's element; o: the oracle's, as it computed it; r: o rounded to p's dtype.
Exceptional classify(double p, double o, double r, double min_normal, double rtol, double atol) {
  if (std::isnan(r)) return std::isnan(p) ? Exceptional::kPropagate : Exceptional::kIgnore;
  if (std::isnan(p)) return Exceptional::kNan;
  if (std::isinf(r)) {
    if (p == r) return std::isinf(o) ? Exceptional::kPropagate : Exceptional::kOverflowAsOracle;
    if (std::isinf(p)) return Exceptional::kInf;
    return std::isinf(o) ? Exceptional::kIgnore : Exceptional::kNoOverflow;
  }
  if (std::isinf(p)) return Exceptional::kInf;
  if (p == r) {
    return std::signbit(p) != std::signbit(r) ? Exceptional::kZeroSign : Exceptional::kAsOracle;
  }
  if (p == 0 && std::fabs(r) < min_normal) return Exceptional::kFlush;
  return std::fabs(p - r) <= atol + rtol * std::fabs(r) ? Exceptional::kAsOracle
                                                        : Exceptional::kDiffers;
}

}  // namespace

const char* exceptional_name(Exceptional e) { return kNames[static_cast<size_t>(e)]; }

Exceptional ExceptionalCounts::worst() const {
  for (int i = kNumExceptional - 1; i > 0; --i)
    if (count[static_cast<size_t>(i)] > 0) return static_cast<Exceptional>(i);
  return Exceptional::kAsOracle;
}

void classify_against_oracle(const Tensor& platform, const Tensor& oracle, double rtol, double atol,
                             ExceptionalCounts& counts) {
  const int64_t n = platform.numel();
  if (platform.shape() != oracle.shape()) {
    counts[Exceptional::kDiffers] += std::max<int64_t>(n, 1);
    return;
  }
  if (!is_float(platform.dtype())) {
    for (int64_t i = 0; i < n; ++i) {
      const bool same = platform.as_double(i) == oracle.as_double(i);
      ++counts[same ? Exceptional::kAsOracle : Exceptional::kDiffers];
    }
    return;
  }
  const Tensor rounded = convert_float_tensor(oracle, platform.dtype());
  const double min_normal = smallest_normal(platform.dtype());
  const std::vector<double> p = as_doubles(platform), o = as_doubles(oracle),
                            r = as_doubles(rounded);
  for (size_t i = 0; i < p.size(); ++i)
    ++counts[classify(p[i], o[i], r[i], min_normal, rtol, atol)];
}

}  // namespace ig

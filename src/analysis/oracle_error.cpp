#include "analysis/oracle_error.h"

#include <cmath>
#include <limits>

namespace ig {

OracleTensorError oracle_tensor_error(const Tensor& platform, const Tensor& oracle) {
  OracleTensorError r;
  if (platform.dtype() == DType::kString || oracle.dtype() == DType::kString) {
    r.why_not = "string tensors have no numeric error";
    return r;
  }
  if (platform.shape() != oracle.shape()) {
    r.why_not = "shape " + platform.describe() + " against the oracle's " + oracle.describe();
    return r;
  }
  r.comparable = true;
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < platform.numel(); ++i) {
    const double y = platform.as_double(i);
    const double o = oracle.as_double(i);
    if (std::isfinite(y) && std::isfinite(o)) {
      diff = std::max(diff, std::abs(y - o));
      scale = std::max(scale, std::abs(o));
      continue;
    }
    const bool agree = (std::isnan(y) && std::isnan(o)) || y == o;
    if (!agree) {
      r.error = std::numeric_limits<double>::infinity();
      return r;
    }
  }
  r.error = scale > 0 ? diff / scale : diff;
  return r;
}

double unit_roundoff(DType dtype) {
  if (!is_float(dtype)) return 0;
  return std::ldexp(1.0, -(dtype_info(dtype).mantissa_bits + 1));
}

}  // namespace ig

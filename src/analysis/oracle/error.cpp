#include "analysis/oracle/error.h"

#include <functional>

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
  bool disagree = false;
  // Typed loops for the float pairs every study has (fp32 or fp64 against the fp64 oracle):
  // as_double's per-element dispatch dominated `compare` on large traces.
  auto scan = [&](auto load_y, auto load_o) {
    for (int64_t i = 0; i < platform.numel(); ++i) {
      const double y = load_y(i), o = load_o(i);
      if (std::isfinite(y) && std::isfinite(o)) {
        diff = std::max(diff, std::abs(y - o));
        scale = std::max(scale, std::abs(o));
        continue;
      }
      if (!((std::isnan(y) && std::isnan(o)) || y == o)) {
        disagree = true;
        return;
      }
    }
  };
  auto loader = [](const Tensor& t) -> std::function<double(int64_t)> {
    if (t.dtype() == DType::kFloat32) {
      const float* p = t.data<float>();
      return [p](int64_t i) { return static_cast<double>(p[i]); };
    }
    if (t.dtype() == DType::kFloat64) {
      const double* p = t.data<double>();
      return [p](int64_t i) { return p[i]; };
    }
    return [&t](int64_t i) { return t.as_double(i); };
  };
  const bool f32 = platform.dtype() == DType::kFloat32, o64 = oracle.dtype() == DType::kFloat64;
  if (f32 && o64) {
    const float* y = platform.data<float>();
    const double* o = oracle.data<double>();
    scan([y](int64_t i) { return static_cast<double>(y[i]); }, [o](int64_t i) { return o[i]; });
  } else {
    scan(loader(platform), loader(oracle));
  }
  if (disagree) {
    r.error = std::numeric_limits<double>::infinity();
    return r;
  }
  r.error = scale > 0 ? diff / scale : diff;
  return r;
}

double unit_roundoff(DType dtype) {
  if (!is_float(dtype)) return 0;
  return std::ldexp(1.0, -(dtype_info(dtype).mantissa_bits + 1));
}

}  // namespace ig

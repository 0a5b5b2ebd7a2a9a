#include "tensor/as_doubles.h"

#include <algorithm>

namespace ig {

std::vector<double> as_doubles(const Tensor& t) {
  const auto n = static_cast<size_t>(t.numel());
  std::vector<double> v(n);
  // The common float types in one typed loop each; the rest element by element.
  if (t.dtype() == DType::kFloat32) {
    const float* p = t.data<float>();
    for (size_t i = 0; i < n; ++i) v[i] = p[i];
  } else if (t.dtype() == DType::kFloat64) {
    const double* p = t.data<double>();
    std::copy(p, p + n, v.begin());
  } else {
    for (size_t i = 0; i < n; ++i) v[i] = t.as_double(static_cast<int64_t>(i));
  }
  return v;
}

}  // namespace ig

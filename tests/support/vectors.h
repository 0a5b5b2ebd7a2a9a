// Test helper: 1-D float and double tensors from literals.
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace ig::testing {

inline Tensor f32(std::vector<float> v) {
  const auto n = static_cast<int64_t>(v.size());
  return Tensor::from_vector<float>(v, {n});
}
inline Tensor f64(std::vector<double> v) {
  const auto n = static_cast<int64_t>(v.size());
  return Tensor::from_vector<double>(v, {n});
}

}  // namespace ig::testing

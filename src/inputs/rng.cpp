#include "inputs/rng.h"

#include <xxhash.h>

#include <cmath>

namespace ig {

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // 1 - u is in (0, 1], so the logarithm is finite.
  const double u1 = 1.0 - uniform();
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * 3.14159265358979323846 * u2;
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

uint64_t derive_seed(uint64_t seed, const std::string& name) {
  return XXH3_64bits_withSeed(name.data(), name.size(), seed);
}

namespace {

template <typename T>
void fill_ints(Tensor& t, const std::vector<double>& values) {
  T* dst = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) dst[i] = static_cast<T>(values[i]);
}

}  // namespace

Expected<Tensor> tensor_from_doubles(DType dtype, const Shape& shape,
                                     const std::vector<double>& values) {
  IG_ASSIGN_OR_RETURN(Tensor t, Tensor::create(dtype, shape));
  if (static_cast<int64_t>(values.size()) != t.numel())
    return internal_error("tensor_from_doubles: {} values for {}", values.size(), t.describe());
  switch (dtype) {
    case DType::kFloat32:
      for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = static_cast<float>(values[i]);
      break;
    case DType::kFloat64:
      for (size_t i = 0; i < values.size(); ++i) t.data<double>()[i] = values[i];
      break;
    case DType::kFloat16:
      for (size_t i = 0; i < values.size(); ++i)
        t.data<Float16>()[i] = Float16(static_cast<float>(values[i]));
      break;
    case DType::kBFloat16:
      for (size_t i = 0; i < values.size(); ++i)
        t.data<BFloat16>()[i] = BFloat16(static_cast<float>(values[i]));
      break;
    case DType::kBool:
      for (size_t i = 0; i < values.size(); ++i) t.data<bool>()[i] = values[i] != 0;
      break;
    case DType::kInt8:
      fill_ints<int8_t>(t, values);
      break;
    case DType::kInt16:
      fill_ints<int16_t>(t, values);
      break;
    case DType::kInt32:
      fill_ints<int32_t>(t, values);
      break;
    case DType::kInt64:
      fill_ints<int64_t>(t, values);
      break;
    case DType::kUInt8:
      fill_ints<uint8_t>(t, values);
      break;
    case DType::kUInt16:
      fill_ints<uint16_t>(t, values);
      break;
    case DType::kUInt32:
      fill_ints<uint32_t>(t, values);
      break;
    case DType::kUInt64:
      fill_ints<uint64_t>(t, values);
      break;
    default:
      return unsupported("cannot generate values of type {}", dtype_name(dtype));
  }
  return t;
}

}  // namespace ig

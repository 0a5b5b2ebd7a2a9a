#include "inputs/random_input.h"

#include <random>

namespace ig {

Tensor random_uniform_tensor(DType dtype, const Shape& shape, uint64_t seed) {
  Tensor t(dtype, shape);
  std::mt19937_64 rng(seed);  // the engine is specified exactly by the standard
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    const double u = static_cast<double>(r >> 11) * 0x1.0p-53;  // [0, 1)
    switch (dtype) {
      case DType::kFloat32:
        t.data<float>()[i] = static_cast<float>(static_cast<double>(r >> 40) * 0x1.0p-24);
        break;
      case DType::kFloat64:
        t.data<double>()[i] = u;
        break;
      case DType::kFloat16:
        t.data<Float16>()[i] =
            Float16::from_bits(float_to_half_bits(static_cast<float>((r >> 53) * 0x1.0p-11)));
        break;
      case DType::kBFloat16:
        t.data<BFloat16>()[i] =
            BFloat16::from_bits(float_to_bfloat16_bits(static_cast<float>((r >> 56) * 0x1.0p-8)));
        break;
      case DType::kBool:
        t.data<bool>()[i] = (r >> 63) != 0;
        break;
      case DType::kString:
        t.strings()[static_cast<size_t>(i)] = std::to_string(r % 10);
        break;
      default:
        if (is_integer(dtype)) {
          const int64_t v = static_cast<int64_t>(r % 10);
          switch (dtype) {
            case DType::kInt8:
              t.data<int8_t>()[i] = static_cast<int8_t>(v);
              break;
            case DType::kInt16:
              t.data<int16_t>()[i] = static_cast<int16_t>(v);
              break;
            case DType::kInt32:
              t.data<int32_t>()[i] = static_cast<int32_t>(v);
              break;
            case DType::kInt64:
              t.data<int64_t>()[i] = v;
              break;
            case DType::kUInt8:
              t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
              break;
            case DType::kUInt16:
              t.data<uint16_t>()[i] = static_cast<uint16_t>(v);
              break;
            case DType::kUInt32:
              t.data<uint32_t>()[i] = static_cast<uint32_t>(v);
              break;
            case DType::kUInt64:
              t.data<uint64_t>()[i] = static_cast<uint64_t>(v);
              break;
            default:
              break;
          }
        }
    }
  }
  return t;
}

}  // namespace ig

// Element types. Values equal ONNX TensorProto.DataType so conversion is a cast.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/float16.h"

namespace ig {

enum class DType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  // Narrow types (core/narrow_types.h): held one element per byte, the code in its low bits.
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};
inline constexpr int kNumDTypes = 27;

struct DTypeInfo {
  DType dtype;
  const char* name;  // ONNX spelling: float, int64, float16, ...
  size_t size;       // bytes per element (0 for string)
  bool is_float;     // IEEE-style floating point (fp16, bf16, fp32, fp64)
  bool is_integer;   // signed or unsigned integer (not bool)
  bool is_signed;
  int mantissa_bits;  // explicit mantissa bits of floats (narrow ones too), 0 otherwise
  int exponent_bits;
  // Bits of a narrow type's code (8, 4 or 2; one element a byte in a Tensor, packed in ONNX
  // files); 0 for the others. Narrow types are neither is_float nor is_integer: only the
  // conversions of core/narrow_types.h read them.
  int narrow_bits;
};

const DTypeInfo& dtype_info(DType dt);
inline const char* dtype_name(DType dt) { return dtype_info(dt).name; }
inline size_t dtype_size(DType dt) { return dtype_info(dt).size; }
inline bool is_float(DType dt) { return dtype_info(dt).is_float; }
inline bool is_integer(DType dt) { return dtype_info(dt).is_integer; }
inline bool is_narrow(DType dt) { return dtype_info(dt).narrow_bits > 0; }
// The smallest positive normal number of a float dtype (FLT_MIN for fp32, 2^-14 for fp16).
double smallest_normal(DType dt);
bool is_valid_dtype(int32_t value);
std::optional<DType> dtype_from_name(std::string_view name);
// ONNX element types infergap has no DType for, by their ONNX name: float6e2m3 and float6e3m2
// (ONNX 1.20); nullopt for any other value.
std::optional<std::string_view> lacked_onnx_type(int32_t value);

// C++ type <-> DType
template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kFloat32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::kFloat64;
};
template <>
struct DTypeOf<Float16> {
  static constexpr DType value = DType::kFloat16;
};
template <>
struct DTypeOf<BFloat16> {
  static constexpr DType value = DType::kBFloat16;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr DType value = DType::kInt8;
};
template <>
struct DTypeOf<int16_t> {
  static constexpr DType value = DType::kInt16;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kInt32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kInt64;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kUInt8;
};
template <>
struct DTypeOf<uint16_t> {
  static constexpr DType value = DType::kUInt16;
};
template <>
struct DTypeOf<uint32_t> {
  static constexpr DType value = DType::kUInt32;
};
template <>
struct DTypeOf<uint64_t> {
  static constexpr DType value = DType::kUInt64;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::kBool;
};
template <>
struct DTypeOf<std::complex<float>> {
  static constexpr DType value = DType::kComplex64;
};
template <>
struct DTypeOf<std::complex<double>> {
  static constexpr DType value = DType::kComplex128;
};
template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

// The type arithmetic on T is done in: fp16/bf16 compute in float, everything else in itself.
template <typename T>
struct ComputeTypeOf {
  using type = T;
};
template <>
struct ComputeTypeOf<Float16> {
  using type = float;
};
template <>
struct ComputeTypeOf<BFloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename ComputeTypeOf<T>::type;

template <typename T>
inline compute_t<T> to_compute(T v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}
template <typename T>
inline T from_compute(compute_t<T> v) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T(v);
  } else {
    return v;
  }
}
// v rounded to T and back: an intermediate result as numpy, computing in T, would hold it.
template <typename T>
inline compute_t<T> rounded_to(compute_t<T> v) {
  return to_compute(from_compute<T>(v));
}

}  // namespace ig

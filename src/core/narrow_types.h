// The narrow element types of ONNX 1.14 to 1.20: float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz),
// float8e8m0, float4e2m1, int4/uint4 and int2/uint2. A Tensor holds one element a byte, its code
// in the low bits; ONNX files pack 4- and 2-bit codes low bits first. Conversions follow what
// ONNX's reference implementation does (numpy with ml_dtypes): floats round to nearest even.
#pragma once

#include <cstdint>
#include <string>

#include "core/dtype.h"

namespace ig {

inline bool is_narrow_int(DType dt) {
  return is_narrow(dt) && dtype_info(dt).mantissa_bits == 0 && dtype_info(dt).exponent_bits == 0;
}
inline bool is_narrow_float(DType dt) { return is_narrow(dt) && !is_narrow_int(dt); }

// The value of `code` (NaN and infinities where the type has them).
double narrow_value(DType dt, uint8_t code);
// The integer of a narrow integer code (int4 0xF is -1).
int64_t narrow_int_value(DType dt, uint8_t code);

// float8e8m0's rounding (Cast's round_mode, opset 25): a power of two at or above, at or below,
// or nearest (ONNX's rule on the float32 bits).
enum class E8M0Rounding { kUp, kDown, kNearest };

// The code of `v` in a narrow float type. saturate: values beyond the largest finite one (and
// infinities) become it; otherwise they become infinity (e5m2) or NaN (the others). float4e2m1
// has neither, so it always saturates; NaN becomes a zero of its sign there.
uint8_t narrow_float_code(DType dt, double v, bool saturate,
                          E8M0Rounding rounding = E8M0Rounding::kUp);
// Cast to a narrow integer: truncated toward zero and wrapped modulo 2^bits (numpy's astype);
// NaN and infinities give 0.
uint8_t narrow_int_wrapped(DType dt, double v);
// QuantizeLinear's result: `v` clamped to the type's range.
uint8_t narrow_int_saturated(DType dt, int64_t v);
// The smallest and largest value of a narrow integer type.
int64_t narrow_int_min(DType dt);
int64_t narrow_int_max(DType dt);

// Code `index` of `bits`-wide codes packed low bits first in `bytes` (ONNX's int4/int2/float4
// and ONNX Runtime's 2-, 4- and 8-bit block layouts).
inline int64_t packed_code(const uint8_t* bytes, int64_t index, int64_t bits) {
  const int64_t bit = index * bits;
  return (bytes[bit / 8] >> (bit % 8)) & ((int64_t{1} << bits) - 1);
}
// The bytes `n` codes of `bits` take packed.
inline int64_t packed_size(int64_t n, int bits) { return (n * bits + 7) / 8; }
// `n` codes packed low bits first.
std::string pack_codes(const uint8_t* codes, int64_t n, int bits);

}  // namespace ig

#include "core/narrow_types.h"

#include <bit>
#include <cmath>

namespace ig {

namespace {

// What a narrow float's codes at the top of the range mean.
enum class Specials {
  kIeee,  // e5m2: exponent all ones is infinity (mantissa 0) or NaN
  kFn,    // e4m3fn: finite; S.1111.111 is NaN
  kFnuz,  // e4m3fnuz, e5m2fnuz: finite, no negative zero; 0x80 is NaN
  kNone,  // float4e2m1: finite, no NaN
};

struct MiniFloat {
  int exponent_bits, mantissa_bits, bias;
  Specials specials;
  uint8_t max_magnitude;  // the code of the largest finite value, sign cleared
};

MiniFloat mini_float(DType dt) {
  switch (dt) {
    case DType::kFloat8E4M3FN:
      return {4, 3, 7, Specials::kFn, 0x7E};
    case DType::kFloat8E4M3FNUZ:
      return {4, 3, 8, Specials::kFnuz, 0x7F};
    case DType::kFloat8E5M2:
      return {5, 2, 15, Specials::kIeee, 0x7B};
    case DType::kFloat8E5M2FNUZ:
      return {5, 2, 16, Specials::kFnuz, 0x7F};
    default:  // kFloat4E2M1
      return {2, 1, 1, Specials::kNone, 0x7};
  }
}

uint8_t sign_mask(const MiniFloat& f) {
  return static_cast<uint8_t>(1u << (f.exponent_bits + f.mantissa_bits));
}

double mini_float_value(const MiniFloat& f, uint8_t code) {
  const uint8_t sign = sign_mask(f);
  const int magnitude = code & (sign - 1);
  const int exponent_field = magnitude >> f.mantissa_bits;
  const int mantissa = magnitude & ((1 << f.mantissa_bits) - 1);
  const int exponent_all_ones = (1 << f.exponent_bits) - 1;
  if (f.specials == Specials::kFnuz && code == 0x80) return std::nan("");
  if (f.specials == Specials::kFn && magnitude == 0x7F) return std::nan("");
  if (f.specials == Specials::kIeee && exponent_field == exponent_all_ones)
    return mantissa == 0 ? ((code & sign) ? -INFINITY : INFINITY) : std::nan("");
  const double v = exponent_field == 0 ? std::ldexp(mantissa, 1 - f.bias - f.mantissa_bits)
                                       : std::ldexp(mantissa + (1 << f.mantissa_bits),
                                                    exponent_field - f.bias - f.mantissa_bits);
  return (code & sign) ? -v : v;
}

double round_half_even(double q) {
  const double floor_q = std::floor(q);
  const double fraction = q - floor_q;
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(floor_q, 2.0) != 0)) return floor_q + 1;
  return floor_q;
}

uint8_t mini_float_code(const MiniFloat& f, double v, bool saturate) {
  const uint8_t sign = std::signbit(v) ? sign_mask(f) : uint8_t{0};
  if (std::isnan(v)) {
    switch (f.specials) {
      case Specials::kIeee:
        return sign | 0x7E;  // the quiet NaN ml_dtypes writes
      case Specials::kFn:
        return sign | 0x7F;
      case Specials::kFnuz:
        return 0x80;
      case Specials::kNone:
        return sign;
    }
  }
  double a = std::fabs(v);
  const double max_value = mini_float_value(f, f.max_magnitude);
  if (saturate || f.specials == Specials::kNone) a = std::min(a, max_value);
  int magnitude = 0;
  if (std::isinf(a)) {
    magnitude = 0x100;  // overflows below
  } else if (a > 0) {
    int e2 = 0;
    std::frexp(a, &e2);  // a = m * 2^e2, m in [0.5, 1)
    const int min_exponent = 1 - f.bias;
    const int exponent = std::max(e2 - 1, min_exponent);  // subnormals share the least one
    const double scaled = std::ldexp(a, f.mantissa_bits - exponent);
    // The codes of a sign are consecutive: a carry out of the mantissa is the next exponent.
    magnitude =
        ((exponent - min_exponent) << f.mantissa_bits) + static_cast<int>(round_half_even(scaled));
  }
  if (magnitude > f.max_magnitude) {
    switch (f.specials) {
      case Specials::kIeee:
        return sign | 0x7C;  // infinity
      case Specials::kFn:
        return sign | 0x7F;
      case Specials::kFnuz:
        return 0x80;
      case Specials::kNone:
        return sign | f.max_magnitude;
    }
  }
  if (magnitude == 0 && f.specials == Specials::kFnuz) return 0;
  return static_cast<uint8_t>(sign | magnitude);
}

// ONNX's to_float8e8m0 (onnx.numpy_helper), on the float32 bits: the sign is dropped.
uint8_t e8m0_code(double v, bool saturate, E8M0Rounding rounding) {
  const auto bits = std::bit_cast<uint32_t>(static_cast<float>(v));
  uint32_t exponent = (bits >> 23) & 0xFF;
  if (exponent == 0xFF) return 0xFF;
  bool round_up = false;
  if (rounding == E8M0Rounding::kNearest) {
    const bool guard = bits & 0x400000, round = bits & 0x200000, sticky = bits & 0x1FFFFF;
    round_up = guard && (round || sticky || exponent > 0);
  } else if (rounding == E8M0Rounding::kUp) {
    round_up = (bits & 0x7FFFFF) != 0;
  }
  if (saturate && exponent == 0xFE) round_up = false;
  return static_cast<uint8_t>(exponent + (round_up ? 1 : 0));
}

int narrow_int_bits(DType dt) { return dtype_info(dt).narrow_bits; }

}  // namespace

double narrow_value(DType dt, uint8_t code) {
  if (is_narrow_int(dt)) return static_cast<double>(narrow_int_value(dt, code));
  if (dt == DType::kFloat8E8M0) return code == 0xFF ? std::nan("") : std::ldexp(1.0, code - 127);
  return mini_float_value(mini_float(dt), code);
}

int64_t narrow_int_value(DType dt, uint8_t code) {
  const int bits = narrow_int_bits(dt);
  const int64_t v = code & ((1 << bits) - 1);
  return dtype_info(dt).is_signed && v >= (int64_t{1} << (bits - 1)) ? v - (int64_t{1} << bits) : v;
}

uint8_t narrow_float_code(DType dt, double v, bool saturate, E8M0Rounding rounding) {
  if (dt == DType::kFloat8E8M0) return e8m0_code(v, saturate, rounding);
  return mini_float_code(mini_float(dt), v, saturate);
}

uint8_t narrow_int_wrapped(DType dt, double v) {
  if (!std::isfinite(v)) return 0;
  const int bits = narrow_int_bits(dt);
  const double wrapped = std::fmod(std::trunc(v), std::ldexp(1.0, bits));  // exact
  return static_cast<uint8_t>(static_cast<int64_t>(wrapped) & ((1 << bits) - 1));
}

int64_t narrow_int_min(DType dt) {
  return dtype_info(dt).is_signed ? -(int64_t{1} << (narrow_int_bits(dt) - 1)) : 0;
}

int64_t narrow_int_max(DType dt) {
  const int bits = narrow_int_bits(dt);
  return (int64_t{1} << (dtype_info(dt).is_signed ? bits - 1 : bits)) - 1;
}

uint8_t narrow_int_saturated(DType dt, int64_t v) {
  const int64_t clamped = std::min(std::max(v, narrow_int_min(dt)), narrow_int_max(dt));
  return static_cast<uint8_t>(clamped & ((1 << narrow_int_bits(dt)) - 1));
}

std::string pack_codes(const uint8_t* codes, int64_t n, int bits) {
  std::string bytes(static_cast<size_t>(packed_size(n, bits)), '\0');
  const int mask = (1 << bits) - 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t bit = i * bits;
    bytes[static_cast<size_t>(bit / 8)] =
        static_cast<char>(static_cast<uint8_t>(bytes[static_cast<size_t>(bit / 8)]) |
                          ((codes[i] & mask) << (bit % 8)));
  }
  return bytes;
}

}  // namespace ig

// The narrow types' conversions (core/narrow_types.h) against the values ONNX's reference
// (numpy with ml_dtypes) gives: every code round trips, maxima, overflow with and without
// saturation, ties to even, subnormals, int4 wrapping and saturation, float8e8m0's rounding
// modes, and packing.
#include "core/narrow_types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ig {
namespace {

const std::vector<DType> kNarrowFloats = {DType::kFloat8E4M3FN, DType::kFloat8E4M3FNUZ,
                                          DType::kFloat8E5M2, DType::kFloat8E5M2FNUZ,
                                          DType::kFloat4E2M1};

TEST(NarrowTypes, TheTableKnowsThem) {
  EXPECT_EQ(dtype_name(DType::kFloat8E4M3FN), std::string("float8e4m3fn"));
  EXPECT_EQ(dtype_from_name("int4"), DType::kInt4);
  for (DType dt : kNarrowFloats) {
    EXPECT_TRUE(is_narrow_float(dt)) << dtype_name(dt);
    EXPECT_FALSE(is_float(dt) || is_integer(dt)) << dtype_name(dt);
    EXPECT_EQ(dtype_size(dt), 1u);
  }
  for (DType dt : {DType::kInt4, DType::kUInt4, DType::kInt2, DType::kUInt2})
    EXPECT_TRUE(is_narrow_int(dt)) << dtype_name(dt);
  EXPECT_EQ(dtype_info(DType::kInt2).narrow_bits, 2);
  EXPECT_FALSE(is_narrow(DType::kInt8));
}

TEST(NarrowTypes, EveryCodeRoundTrips) {
  for (DType dt : kNarrowFloats) {
    const int codes = 1 << dtype_info(dt).narrow_bits;
    for (int c = 0; c < codes; ++c) {
      const double v = narrow_value(dt, static_cast<uint8_t>(c));
      if (std::isnan(v)) continue;
      EXPECT_EQ(narrow_float_code(dt, v, false), c) << dtype_name(dt) << " " << v;
    }
  }
}

TEST(NarrowTypes, LargestFiniteValues) {
  EXPECT_EQ(narrow_value(DType::kFloat8E4M3FN, 0x7E), 448);
  EXPECT_EQ(narrow_value(DType::kFloat8E4M3FNUZ, 0x7F), 240);
  EXPECT_EQ(narrow_value(DType::kFloat8E5M2, 0x7B), 57344);
  EXPECT_EQ(narrow_value(DType::kFloat8E5M2FNUZ, 0x7F), 57344);
  EXPECT_EQ(narrow_value(DType::kFloat4E2M1, 0x7), 6);
  EXPECT_EQ(narrow_value(DType::kFloat8E8M0, 0xFE), std::ldexp(1.0, 127));
  EXPECT_EQ(narrow_value(DType::kFloat8E8M0, 0x00), std::ldexp(1.0, -127));
}

TEST(NarrowTypes, SpecialCodes) {
  EXPECT_TRUE(std::isnan(narrow_value(DType::kFloat8E4M3FN, 0x7F)));
  EXPECT_TRUE(std::isnan(narrow_value(DType::kFloat8E4M3FNUZ, 0x80)));
  EXPECT_EQ(narrow_value(DType::kFloat8E5M2, 0x7C), INFINITY);
  EXPECT_EQ(narrow_value(DType::kFloat8E5M2, 0xFC), -INFINITY);
  EXPECT_TRUE(std::isnan(narrow_value(DType::kFloat8E8M0, 0xFF)));
  EXPECT_EQ(narrow_value(DType::kFloat4E2M1, 0x8), 0.0);
  EXPECT_TRUE(std::signbit(narrow_value(DType::kFloat4E2M1, 0x8)));
  // fnuz has no negative zero: -0 and negatives that round to 0 are +0.
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FNUZ, -0.0, true), 0);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E5M2FNUZ, -1e-30, true), 0);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, -0.0, true), 0x80);
}

TEST(NarrowTypes, OverflowSaturatesOrBecomesInfinityOrNaN) {
  // Values ml_dtypes gives: 470 rounds past 448 (to NaN), 460 rounds down to 448.
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, 470, false), 0x7F);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, 460, false), 0x7E);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, 470, true), 0x7E);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, -INFINITY, false), 0xFF);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, -INFINITY, true), 0xFE);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E5M2, 61440, false), 0x7C);  // a tie, to infinity
  EXPECT_EQ(narrow_float_code(DType::kFloat8E5M2, 61440, true), 0x7B);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FNUZ, 460, false), 0x80);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FNUZ, 460, true), 0x7F);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E5M2FNUZ, INFINITY, false), 0x80);
  // float4 always saturates and makes NaN a zero of its sign.
  EXPECT_EQ(narrow_float_code(DType::kFloat4E2M1, 100, false), 0x7);
  EXPECT_EQ(narrow_float_code(DType::kFloat4E2M1, -INFINITY, false), 0xF);
  EXPECT_EQ(narrow_float_code(DType::kFloat4E2M1, NAN, true), 0x0);
  EXPECT_EQ(narrow_float_code(DType::kFloat4E2M1, -NAN, true), 0x8);
}

TEST(NarrowTypes, TiesRoundToEvenIncludingSubnormals) {
  EXPECT_EQ(narrow_value(DType::kFloat4E2M1, narrow_float_code(DType::kFloat4E2M1, 5, true)), 4);
  EXPECT_EQ(narrow_value(DType::kFloat4E2M1, narrow_float_code(DType::kFloat4E2M1, 0.25, true)), 0);
  EXPECT_EQ(narrow_value(DType::kFloat4E2M1, narrow_float_code(DType::kFloat4E2M1, 0.75, true)), 1);
  EXPECT_EQ(narrow_value(DType::kFloat8E4M3FN, narrow_float_code(DType::kFloat8E4M3FN, 17, true)),
            16);
  EXPECT_EQ(narrow_value(DType::kFloat8E4M3FN, narrow_float_code(DType::kFloat8E4M3FN, 19, true)),
            20);
  const double tiny = std::ldexp(1.0, -9);  // e4m3fn's least subnormal
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, tiny, true), 1);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, tiny / 2, true), 0);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, tiny * 0.75, true), 1);
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, tiny * 1.5, true), 2);
  // The largest subnormal rounds up into the least normal: consecutive codes.
  EXPECT_EQ(narrow_float_code(DType::kFloat8E4M3FN, std::ldexp(1.0, -6) * 0.99, true), 0x08);
}

TEST(NarrowTypes, IntegersWrapOnCastAndSaturateOnQuantize) {
  auto wrapped = [](DType dt, double v) { return narrow_int_value(dt, narrow_int_wrapped(dt, v)); };
  EXPECT_EQ(wrapped(DType::kInt4, 8), -8);
  EXPECT_EQ(wrapped(DType::kInt4, 9.9), -7);
  EXPECT_EQ(wrapped(DType::kInt4, -3.7), -3);
  EXPECT_EQ(wrapped(DType::kInt4, 100), 4);
  EXPECT_EQ(wrapped(DType::kUInt4, -3.7), 13);
  EXPECT_EQ(wrapped(DType::kInt4, NAN), 0);
  EXPECT_EQ(wrapped(DType::kInt2, 2), -2);
  EXPECT_EQ(wrapped(DType::kUInt2, 5), 1);
  auto saturated = [](DType dt, int64_t v) {
    return narrow_int_value(dt, narrow_int_saturated(dt, v));
  };
  EXPECT_EQ(saturated(DType::kInt4, 100), 7);
  EXPECT_EQ(saturated(DType::kInt4, -100), -8);
  EXPECT_EQ(saturated(DType::kUInt4, -1), 0);
  EXPECT_EQ(saturated(DType::kInt2, 5), 1);
  EXPECT_EQ(saturated(DType::kUInt2, 5), 3);
  EXPECT_EQ(narrow_int_min(DType::kInt2), -2);
  EXPECT_EQ(narrow_int_max(DType::kUInt4), 15);
}

TEST(NarrowTypes, E8M0RoundsAsItsModeSays) {
  auto value = [](double v, E8M0Rounding r, bool saturate = true) {
    return narrow_value(DType::kFloat8E8M0, narrow_float_code(DType::kFloat8E8M0, v, saturate, r));
  };
  EXPECT_EQ(value(3, E8M0Rounding::kUp), 4);
  EXPECT_EQ(value(3, E8M0Rounding::kDown), 2);
  EXPECT_EQ(value(3, E8M0Rounding::kNearest), 4);
  EXPECT_EQ(value(1.25, E8M0Rounding::kNearest), 1);
  EXPECT_EQ(value(-8, E8M0Rounding::kUp), 8);  // the sign is dropped
  EXPECT_EQ(value(std::ldexp(1.5, 127), E8M0Rounding::kUp), std::ldexp(1.0, 127));
  EXPECT_TRUE(std::isnan(value(std::ldexp(1.5, 127), E8M0Rounding::kUp, false)));
  EXPECT_TRUE(std::isnan(value(INFINITY, E8M0Rounding::kUp)));
}

TEST(NarrowTypes, PackingIsLowBitsFirst) {
  const std::vector<uint8_t> codes = {0x8, 0xF, 0x0, 0x7, 0x3};
  const std::string packed = pack_codes(codes.data(), 5, 4);
  ASSERT_EQ(packed.size(), 3u);
  EXPECT_EQ(static_cast<uint8_t>(packed[0]), 0xF8);
  EXPECT_EQ(static_cast<uint8_t>(packed[1]), 0x70);
  EXPECT_EQ(static_cast<uint8_t>(packed[2]), 0x03);
  const std::vector<uint8_t> two = {1, 2, 3, 0, 3};
  const std::string p2 = pack_codes(two.data(), 5, 2);
  ASSERT_EQ(p2.size(), 2u);
  for (int64_t i = 0; i < 5; ++i)
    EXPECT_EQ(packed_code(reinterpret_cast<const uint8_t*>(p2.data()), i, 2),
              two[static_cast<size_t>(i)]);
}

}  // namespace
}  // namespace ig

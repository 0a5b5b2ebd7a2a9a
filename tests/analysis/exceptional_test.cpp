// The exceptional-value classes on hand-made cases, each the row of docs/CAMPAIGNS.md "Exceptional
// values" it implements: a platform element against the fp64 oracle rounded once to the platform's
// dtype.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>

#include "analysis/exceptional.h"

namespace ig {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
volatile float g_flt_max = FLT_MAX;  // so the sum below is computed in fp32, not folded

// One fp32 platform element against one fp64 oracle element.
Exceptional fp32_vs(float platform, double oracle, double rtol = 1e-3, double atol = 1e-5) {
  ExceptionalCounts counts;
  classify_against_oracle(Tensor::from_vector<float>({platform}, {1}),
                          Tensor::from_vector<double>({oracle}, {1}), rtol, atol, counts);
  return counts.worst();
}

TEST(ExceptionalValues, CorrectlyRoundedOverflowIsAsOracle) {
  // FLT_MAX + FLT_MAX: Inf on every correct fp32 platform; the fp64 oracle holds 6.8e38.
  const float sum = g_flt_max + g_flt_max;
  ASSERT_TRUE(std::isinf(sum));
  const double exact = 2.0 * static_cast<double>(FLT_MAX);
  EXPECT_EQ(fp32_vs(sum, exact), Exceptional::kOverflowAsOracle);
  EXPECT_EQ(fp32_vs(-sum, -exact), Exceptional::kOverflowAsOracle);
  EXPECT_STREQ(exceptional_name(Exceptional::kOverflowAsOracle), "overflow-as-oracle");
  // The wrong sign of overflow, or no overflow at all, is not.
  EXPECT_EQ(fp32_vs(-sum, exact), Exceptional::kInf);
  EXPECT_EQ(fp32_vs(FLT_MAX, exact), Exceptional::kNoOverflow);
}

TEST(ExceptionalValues, OverflowFollowsRoundToNearestEvenAtTheEdge) {
  // ulp(FLT_MAX) = 2^104. Below half an ulp above FLT_MAX the correct fp32 result is FLT_MAX; the
  // half-way point rounds to even, away from FLT_MAX's odd mantissa, to Inf.
  const double below = static_cast<double>(FLT_MAX) + std::ldexp(1.0, 102);
  const double halfway = static_cast<double>(FLT_MAX) + std::ldexp(1.0, 103);
  EXPECT_EQ(fp32_vs(FLT_MAX, below), Exceptional::kAsOracle);
  EXPECT_EQ(fp32_vs(std::numeric_limits<float>::infinity(), below), Exceptional::kInf);
  EXPECT_EQ(fp32_vs(std::numeric_limits<float>::infinity(), halfway),
            Exceptional::kOverflowAsOracle);
  EXPECT_EQ(fp32_vs(FLT_MAX, halfway), Exceptional::kNoOverflow);
}

TEST(ExceptionalValues, NanAndInfAgainstTheOracle) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(fp32_vs(nan, kNan), Exceptional::kPropagate);
  EXPECT_EQ(fp32_vs(nan, 1.0), Exceptional::kNan);       // NaN where the oracle is finite
  EXPECT_EQ(fp32_vs(nan, kInf), Exceptional::kNan);      // NaN where the oracle is Inf
  EXPECT_EQ(fp32_vs(1.0f, kNan), Exceptional::kIgnore);  // NaN dropped (maxNum)
  EXPECT_EQ(fp32_vs(inf, kNan), Exceptional::kIgnore);
  EXPECT_EQ(fp32_vs(inf, kInf), Exceptional::kPropagate);
  EXPECT_EQ(fp32_vs(1.0f, kInf), Exceptional::kIgnore);  // Inf dropped
  EXPECT_EQ(fp32_vs(-inf, kInf), Exceptional::kInf);
  EXPECT_EQ(fp32_vs(inf, 1.0), Exceptional::kInf);  // Inf where the oracle is finite
}

TEST(ExceptionalValues, SignedZeros) {
  EXPECT_EQ(fp32_vs(0.0f, 0.0), Exceptional::kAsOracle);
  EXPECT_EQ(fp32_vs(-0.0f, -0.0), Exceptional::kAsOracle);
  EXPECT_EQ(fp32_vs(-0.0f, 0.0), Exceptional::kZeroSign);
  EXPECT_EQ(fp32_vs(0.0f, -0.0), Exceptional::kZeroSign);
  // An oracle value that rounds to a zero keeps its sign.
  EXPECT_EQ(fp32_vs(0.0f, -1e-60), Exceptional::kZeroSign);
  EXPECT_EQ(fp32_vs(-0.0f, -1e-60), Exceptional::kAsOracle);
}

TEST(ExceptionalValues, DenormalsFlushedOrKept) {
  const double sub = std::ldexp(1.0, -140);  // an fp32 denormal, a normal fp64 number
  EXPECT_EQ(fp32_vs(static_cast<float>(sub), sub), Exceptional::kAsOracle);  // kept
  EXPECT_EQ(fp32_vs(0.0f, sub), Exceptional::kFlush);
  EXPECT_EQ(fp32_vs(-0.0f, -sub), Exceptional::kFlush);
  // Tolerance does not hide a flush: atol is far above the denormal range.
  EXPECT_EQ(fp32_vs(0.0f, sub, 1e-3, 1e-5), Exceptional::kFlush);
  // The smallest fp32 normal flushed is an ordinary difference within tolerance, not a flush.
  EXPECT_EQ(fp32_vs(0.0f, static_cast<double>(FLT_MIN)), Exceptional::kAsOracle);
  // A value that is normal in the platform's dtype is no denormal to flush.
  ExceptionalCounts fp64;
  classify_against_oracle(Tensor::from_vector<double>({0.0}, {1}),
                          Tensor::from_vector<double>({sub}, {1}), 1e-3, 1e-5, fp64);
  EXPECT_EQ(fp64.worst(), Exceptional::kAsOracle);
  // fp16: 2^-20 is a denormal there (smallest normal 2^-14).
  ExceptionalCounts fp16;
  classify_against_oracle(Tensor::from_vector<Float16>({Float16(0.0f)}, {1}),
                          Tensor::from_vector<double>({std::ldexp(1.0, -20)}, {1}), 1e-3, 1e-5,
                          fp16);
  EXPECT_EQ(fp16.worst(), Exceptional::kFlush);
}

TEST(ExceptionalValues, FiniteValuesByTolerance) {
  EXPECT_EQ(fp32_vs(1.0005f, 1.0), Exceptional::kAsOracle);
  EXPECT_EQ(fp32_vs(1.01f, 1.0), Exceptional::kDiffers);
  // fp16: the oracle is rounded to fp16 first, so the correctly rounded fp16 value agrees even at
  // zero tolerance.
  ExceptionalCounts fp16;
  classify_against_oracle(Tensor::from_vector<Float16>({Float16(0.1f)}, {1}),
                          Tensor::from_vector<double>({0.1}, {1}), 0.0, 0.0, fp16);
  EXPECT_EQ(fp16.worst(), Exceptional::kAsOracle);
}

TEST(ExceptionalValues, RunIsItsElementOfHighestPrecedence) {
  ExceptionalCounts counts;
  classify_against_oracle(
      Tensor::from_vector<float>({g_flt_max + g_flt_max, -0.0f, 2.0f, 1.0f}, {4}),
      Tensor::from_vector<double>({1e39, 0.0, 2.0, 1.0}, {4}), 1e-3, 1e-5, counts);
  EXPECT_EQ(counts[Exceptional::kOverflowAsOracle], 1);
  EXPECT_EQ(counts[Exceptional::kZeroSign], 1);
  EXPECT_EQ(counts[Exceptional::kAsOracle], 2);
  EXPECT_EQ(counts.worst(), Exceptional::kZeroSign);
  EXPECT_FALSE(counts.nonfinite_unlike_oracle());
  classify_against_oracle(Tensor::from_vector<float>({std::nanf("")}, {1}),
                          Tensor::from_vector<double>({3.0}, {1}), 1e-3, 1e-5, counts);
  EXPECT_EQ(counts.worst(), Exceptional::kNan);
  EXPECT_TRUE(counts.nonfinite_unlike_oracle());
}

TEST(ExceptionalValues, ShapeMismatchDiffers) {
  ExceptionalCounts counts;
  classify_against_oracle(Tensor::from_vector<float>({1.0f, 2.0f}, {2}),
                          Tensor::from_vector<double>({1.0, 2.0}, {1, 2}), 1e-3, 1e-5, counts);
  EXPECT_EQ(counts.worst(), Exceptional::kDiffers);
}

}  // namespace
}  // namespace ig

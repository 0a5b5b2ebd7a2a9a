#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "analysis/compare/compare.h"

namespace ig {
namespace {

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

TEST(RemainingPrecision, FollowsTheDesignDefinition) {
  EXPECT_EQ(remaining_precision_bits(bits(1.0f), bits(1.0f), 23, 8), 23);
  EXPECT_EQ(remaining_precision_bits(0x3f800000, 0x3f800001, 23, 8), 22);  // last bit differs
  EXPECT_EQ(remaining_precision_bits(0x3f800000, 0x3fc00000, 23, 8),
            0);  // first mantissa bit differs
  EXPECT_EQ(remaining_precision_bits(0x3f800000, 0x3fa00000, 23, 8), 1);
  EXPECT_EQ(remaining_precision_bits(bits(1.0f), bits(2.0f), 23, 8), 0);   // exponent differs
  EXPECT_EQ(remaining_precision_bits(bits(0.0f), bits(-0.0f), 23, 8), 0);  // sign differs
  EXPECT_EQ(remaining_precision_bits(0x00000001, 0x00000002, 23, 8), 21);  // denormals
  EXPECT_EQ(remaining_precision_bits(0x7f7fffff, 0x7f800000, 23, 8), 0);   // max vs Inf
  EXPECT_EQ(remaining_precision_bits(0x3c00, 0x3c01, 10, 5), 9);           // fp16
  EXPECT_EQ(remaining_precision_bits(0x3f80, 0x3f81, 7, 8), 6);            // bf16
  EXPECT_EQ(remaining_precision_bits(std::bit_cast<uint64_t>(1.0),
                                     std::bit_cast<uint64_t>(std::nextafter(1.0, 2.0)), 52, 11),
            51);
}

TEST(RemainingPrecision, TheFastPathAgreesWithTheFullComparison) {
  auto a = Tensor::from_vector<float>({1.0f, 3.0f, 5.0f, -0.0f}, {4});
  auto b =
      Tensor::from_vector<float>({1.0f, std::bit_cast<float>(bits(3.0f) ^ 0x10), 5.0f, 0.0f}, {4});
  auto c =
      Tensor::from_vector<float>({1.0f, std::bit_cast<float>(bits(3.0f) ^ 0x1), 5.0f, -0.0f}, {4});
  for (const auto& [x, y] : {std::pair{a, b}, std::pair{a, c}, std::pair{a, a}, std::pair{b, c}})
    EXPECT_EQ(tensor_remaining_precision(x, y), compare_tensors(x, y).remaining_precision);
  EXPECT_EQ(tensor_remaining_precision(a, c), 22);
  EXPECT_EQ(tensor_remaining_precision(a, b), 0);  // the sign of zero differs
  EXPECT_EQ(tensor_remaining_precision(a, Tensor::from_vector<double>({1, 3, 5, 0}, {4})), -1);
}

TEST(RemainingPrecision, TensorIsMinimumOverElements) {
  auto a = Tensor::from_vector<float>({1.0f, 3.0f, 5.0f}, {3});
  auto b = Tensor::from_vector<float>({1.0f, std::bit_cast<float>(bits(3.0f) ^ 0x10), 5.0f}, {3});
  auto c = compare_tensors(a, b);
  EXPECT_FALSE(c.identical);
  EXPECT_EQ(c.differing, 1);
  EXPECT_EQ(c.remaining_precision, 18);  // bit 4 of 23 differs: 23 - 5 leading bits agree
  EXPECT_EQ(c.max_ulp, 16u);
}

TEST(Ulp, DistancesAcrossZeroInfAndNaN) {
  EXPECT_EQ(*ulp_distance_bits(bits(1.0f), bits(std::nextafter(1.0f, 2.0f)), 23, 8), 1u);
  EXPECT_EQ(*ulp_distance_bits(bits(0.0f), bits(-0.0f), 23, 8), 0u);
  EXPECT_EQ(*ulp_distance_bits(0x00000001, 0x80000001, 23, 8), 2u);
  EXPECT_EQ(*ulp_distance_bits(0x7f7fffff, 0x7f800000, 23, 8), 1u);
  EXPECT_FALSE(ulp_distance_bits(0x7fc00000, 0x7fc00000, 23, 8).has_value());
  EXPECT_EQ(*ulp_distance_bits(0x3c00, 0x3bff, 10, 5), 1u);
}

TEST(Compare, NaNAndInfPositionsAndIdenticalNaNs) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto a = Tensor::from_vector<float>({nan, inf, 1.0f}, {3});
  auto same = compare_tensors(a, a.clone());
  EXPECT_TRUE(same.identical);
  EXPECT_EQ(same.remaining_precision, 23);
  EXPECT_TRUE(same.nan_positions_agree);
  auto b = Tensor::from_vector<float>({1.0f, -inf, 1.0f}, {3});
  auto c = compare_tensors(a, b);
  EXPECT_FALSE(c.nan_positions_agree);
  EXPECT_FALSE(c.inf_positions_agree);
  EXPECT_EQ(c.remaining_precision, 0);
  EXPECT_EQ(c.max_abs_error, 0.0);  // only the finite pair (1, 1) enters the error
}

TEST(Compare, ErrorsCosineAndClassifierView) {
  auto a = Tensor::from_vector<float>({0.1f, 0.9f, 0.0f, 0.5f, 0.4f, 0.1f}, {2, 3});
  auto b = Tensor::from_vector<float>({0.1f, 0.8f, 0.0f, 0.4f, 0.5f, 0.1f}, {2, 3});
  auto c = compare_tensors(a, b);
  EXPECT_EQ(c.rows, 2);
  EXPECT_EQ(c.top1_flips, 1);  // row 1: argmax 0 vs 1
  EXPECT_NEAR(c.max_abs_error, 0.1, 1e-6);
  EXPECT_NEAR(c.max_rel_error, 0.25, 1e-6);
  EXPECT_LT(c.cosine_similarity, 1.0);
  EXPECT_GT(c.cosine_similarity, 0.95);
  EXPECT_DOUBLE_EQ(c.top5_overlap, 1.0);  // 3 columns: the same set in both
}

TEST(Compare, DifferentShapesOrTypesAreNotComparable) {
  auto c = compare_tensors(Tensor(DType::kFloat32, {2}), Tensor(DType::kFloat64, {2}));
  EXPECT_FALSE(c.comparable);
  EXPECT_EQ(c.why_not, "float[2] vs double[2]");
}

TEST(Compare, IntegersHaveNoRemainingPrecision) {
  auto c = compare_tensors(Tensor::from_vector<int64_t>({1, 2}, {2}),
                           Tensor::from_vector<int64_t>({1, 3}, {2}));
  EXPECT_EQ(c.remaining_precision, -1);
  EXPECT_EQ(c.differing, 1);
  EXPECT_EQ(c.max_abs_error, 1.0);
}

}  // namespace
}  // namespace ig

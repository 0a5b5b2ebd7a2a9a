// ONNX Runtime's contrib operators on ref, on cases small enough to compute by hand (the numpy
// transcriptions and ORT itself: ort_contrib_spec.py).
#include <gtest/gtest.h>

#include <cmath>

#include "../../support/run_node.h"
#include "backends/ref/numerics/ordered_sum.h"

namespace ig {
namespace ort_contrib_test {
namespace {

using testing::attr_int;
using testing::run_node;

TEST(OrtContrib, MatMulNBitsDequantizesBlocksLowNibbleFirst) {
  // K = 16 in one block of 4-bit codes: byte j holds codes 2j (low) and 2j+1 (high). Codes 0..15,
  // zero point 8 (the default), scale 0.5: W = (k - 8) / 2. A = ones: Y = sum_k (k - 8) / 2 = -4.
  std::vector<uint8_t> b(8);
  for (int j = 0; j < 8; ++j)
    b[static_cast<size_t>(j)] = static_cast<uint8_t>(2 * j | (2 * j + 1) << 4);
  const std::map<std::string, Attribute> attrs = {
      {"K", attr_int(16)}, {"N", attr_int(1)}, {"bits", attr_int(4)}, {"block_size", attr_int(16)}};
  auto y = run_node(
      "MatMulNBits",
      {Tensor::from_vector<float>(std::vector<float>(16, 1.0f), {1, 16}),
       Tensor::from_vector<uint8_t>(b, {1, 1, 8}), Tensor::from_vector<float>({0.5f}, {1})},
      attrs, 1, 1, "com.microsoft");
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  EXPECT_EQ((*y)[0].tensor.values<float>()[0], -4.0f);
  // A packed zero point of 0 and a bias: Y = sum_k k / 2 + 1 = 61.
  auto z = run_node(
      "MatMulNBits",
      {Tensor::from_vector<float>(std::vector<float>(16, 1.0f), {1, 16}),
       Tensor::from_vector<uint8_t>(b, {1, 1, 8}), Tensor::from_vector<float>({0.5f}, {1}),
       Tensor::from_vector<uint8_t>({0}, {1}), Tensor{}, Tensor::from_vector<float>({1.0f}, {1})},
      attrs, 1, 1, "com.microsoft");
  ASSERT_TRUE(z.ok()) << z.status().to_string();
  EXPECT_EQ((*z)[0].tensor.values<float>()[0], 61.0f);
}

TEST(OrtContrib, MatMulNBitsNamesWhatIsWrong) {
  const std::map<std::string, Attribute> attrs = {
      {"K", attr_int(16)}, {"N", attr_int(1)}, {"bits", attr_int(3)}, {"block_size", attr_int(16)}};
  auto y = run_node("MatMulNBits",
                    {Tensor::from_vector<float>(std::vector<float>(16, 1.0f), {1, 16}),
                     Tensor::from_vector<uint8_t>(std::vector<uint8_t>(8), {1, 1, 8}),
                     Tensor::from_vector<float>({0.5f}, {1})},
                    attrs, 1, 1, "com.microsoft");
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("bits 3 is not 2, 4 or 8"), std::string::npos)
      << y.status().message();
}

TEST(OrtContrib, SkipSimplifiedLayerNormalizationNormalizesTheSum) {
  // input + skip + bias = [3, 4]: RMS sqrt(12.5); Y = S / RMS * gamma (eps 0).
  auto y = run_node("SkipSimplifiedLayerNormalization",
                    {Tensor::from_vector<float>({1.0f, 2.0f}, {1, 2}),
                     Tensor::from_vector<float>({1.0f, 1.0f}, {1, 2}),
                     Tensor::from_vector<float>({1.0f, 2.0f}, {2}),
                     Tensor::from_vector<float>({1.0f, 1.0f}, {2})},
                    {{"epsilon", testing::attr_float(0.0f)}}, 1, 1, "com.microsoft");
  ASSERT_TRUE(y.ok()) << y.status().to_string();
  const auto out = (*y)[0].tensor.values<float>();
  const float inv = 1.0f / std::sqrt(12.5f);
  EXPECT_FLOAT_EQ(out[0], 3.0f * inv);
  EXPECT_FLOAT_EQ(out[1], 4.0f * inv * 2.0f);
}

TEST(OrtContrib, SimplifiedLayerNormalizationSumsInThePlatformsOrder) {
  // Squares 2^24 and seven 1s: in order the 1s vanish against 2^24, pairwise they do not.
  std::vector<float> x(8, 1.0f);
  x[0] = 4096.0f;
  const std::vector<float> gamma(8, 1.0f);
  std::vector<float> second;
  for (const char* acc : {"seq", "pairwise"}) {
    auto num = parse_numerics({{"acc", acc}});
    ASSERT_TRUE(num.ok()) << num.status().to_string();
    auto y =
        run_node("SimplifiedLayerNormalization",
                 {Tensor::from_vector<float>(x, {1, 8}), Tensor::from_vector<float>(gamma, {8})},
                 {{"epsilon", testing::attr_float(0.0f)}}, 1, 17, "", *num);
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    const float sq = ordered_sum<float>(*num, 8, [&](int64_t i) { return x[i] * x[i]; });
    EXPECT_EQ((*y)[0].tensor.values<float>()[1], 1.0f / std::sqrt(sq / 8.0f)) << acc;
    second.push_back((*y)[0].tensor.values<float>()[1]);
  }
  EXPECT_NE(second[0], second[1]) << "acc=pairwise changed nothing";
}

}  // namespace
}  // namespace ort_contrib_test
}  // namespace ig

// The emulator's integer-kernel knobs (qdq, madd, wbits, requant, qround): each equals a scalar
// transcription of what the library does, bit for bit, and changes results where it should.
#include <gtest/gtest.h>

#include <algorithm>

#include "../../support/run_node.h"
#include "analysis/explain/explain.h"
#include "backends/ref/numerics.h"
#include "platform/knobs.h"

namespace ig::int8_kernels {
namespace {

using testing::attr_int;
using testing::attr_ints;

Numerics knobs(const std::map<std::string, std::string>& options) {
  auto n = parse_numerics(options);
  EXPECT_TRUE(n.ok()) << n.status().to_string();
  return *n;
}

// Deterministic bytes spread over the whole range (an LCG), so pair sums reach int16's limits.
template <typename T>
Tensor spread(const Shape& shape, uint32_t seed, int lo, int hi) {
  std::vector<T> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<T>(lo + static_cast<int>((seed >> 8) % static_cast<uint32_t>(hi - lo + 1)));
  }
  return Tensor::from_vector<T>(v, shape);
}

// QLinearConv, 3x3, pads 1, on u8 X (zero point 128) and s8 W (zero point 0), one scale for all.
struct ConvCase {
  int64_t c;
  Tensor x = spread<uint8_t>({1, c, 5, 5}, 7, 0, 255);
  Tensor w = spread<int8_t>({4, c, 3, 3}, 9, -127, 127);
  float y_scale = 64.0f;

  Tensor run(const Numerics& n) const {
    auto out = testing::run_node("QLinearConv",
                                 {x, Tensor::scalar<float>(1.0f), Tensor::scalar<uint8_t>(128), w,
                                  Tensor::scalar<float>(1.0f), Tensor::scalar<int8_t>(0),
                                  Tensor::scalar<float>(y_scale), Tensor::scalar<uint8_t>(128)},
                                 {{"pads", attr_ints({1, 1, 1, 1})}}, 1, 13, "", n);
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    return (*out)[0].tensor;
  }
  // vpmaddubsw: raw u8 x s8 products in pairs of adjacent channels at one tap, each pair
  // saturated to int16; padding reads the zero point; then the zero point's share comes off.
  int32_t saturated_sum(int64_t m, int64_t oh, int64_t ow) const {
    const uint8_t* px = x.data<uint8_t>();
    const int8_t* pw = w.data<int8_t>();
    int32_t acc = 0, w_sum = 0;
    for (int64_t kh = 0; kh < 3; ++kh) {
      for (int64_t kw = 0; kw < 3; ++kw) {
        const int64_t ih = oh - 1 + kh, iw = ow - 1 + kw;
        const bool inside = ih >= 0 && ih < 5 && iw >= 0 && iw < 5;
        for (int64_t ch = 0; ch < c; ch += 2) {
          int32_t pair = 0;
          for (int64_t k = ch; k < std::min(ch + 2, c); ++k) {
            const int32_t xv = inside ? px[(k * 5 + ih) * 5 + iw] : 128;
            const int32_t wv = pw[((m * c + k) * 3 + kh) * 3 + kw];
            pair += xv * wv;
            w_sum += wv;
          }
          acc += std::clamp(pair, -32768, 32767);
        }
      }
    }
    return acc - 128 * w_sum;
  }
};

uint8_t requant_even(int32_t acc, float scale) {
  return static_cast<uint8_t>(std::clamp(std::nearbyint(acc * scale) + 128.0f, 0.0f, 255.0f));
}

class SaturatedPairs : public ::testing::TestWithParam<int64_t> {};

TEST_P(SaturatedPairs, EqualTheScalarTranscriptionAndDifferFromExact) {
  const ConvCase cc{GetParam()};
  const Tensor sat = cc.run(knobs({{"madd", "sat16"}}));
  const Tensor exact = cc.run({});
  int64_t differ = 0;
  for (int64_t m = 0; m < 4; ++m) {
    for (int64_t o = 0; o < 25; ++o) {
      const int64_t i = m * 25 + o;
      ASSERT_EQ(sat.data<uint8_t>()[i],
                requant_even(cc.saturated_sum(m, o / 5, o % 5), 1.0f / cc.y_scale))
          << "element " << i;
      differ += sat.data<uint8_t>()[i] != exact.data<uint8_t>()[i];
    }
  }
  EXPECT_GT(differ, 0) << "no pair saturated: the case does not test the knob";
}

// Even channel counts pair within a tap; an odd last channel pairs with a zero weight.
INSTANTIATE_TEST_SUITE_P(Channels, SaturatedPairs, ::testing::Values(4, 3));

// 1x1 QLinearConv on one channel with w = 1 and x_scale * w_scale / y_scale = 1/4, so each
// accumulator `acc` (x - 100) becomes acc / 4 requantized: ties show the rounding rules.
std::vector<int> requantized(const std::vector<int32_t>& accs, const Numerics& n,
                             uint8_t y_zp = 10) {
  std::vector<uint8_t> xs;
  for (int32_t a : accs) xs.push_back(static_cast<uint8_t>(100 + a));
  auto out = testing::run_node(
      "QLinearConv",
      {Tensor::from_vector<uint8_t>(xs, {1, 1, 1, static_cast<int64_t>(xs.size())}),
       Tensor::scalar<float>(1.0f), Tensor::scalar<uint8_t>(100),
       Tensor::from_vector<int8_t>({1}, {1, 1, 1, 1}), Tensor::scalar<float>(1.0f),
       Tensor::scalar<int8_t>(0), Tensor::scalar<float>(4.0f), Tensor::scalar<uint8_t>(y_zp)},
      {}, 1, 13, "", n);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  std::vector<int> v;
  for (int64_t i = 0; i < out->at(0).tensor.numel(); ++i)
    v.push_back(out->at(0).tensor.data<uint8_t>()[i] - y_zp);
  return v;
}

TEST(Requantization, FloatEvenFloatAwayAndGemmlowpRoundTiesTheirWays) {
  const std::vector<int32_t> accs = {2, -2, 10, 6, -6, 7};  // /4: .5 -.5 2.5 1.5 -1.5 1.75
  EXPECT_EQ(requantized(accs, {}), (std::vector<int>{0, 0, 2, 2, -2, 2}));
  EXPECT_EQ(requantized(accs, knobs({{"qround", "away"}})), (std::vector<int>{1, -1, 3, 2, -2, 2}));
  // gemmlowp: SaturatingRoundingDoublingHighMul (0.5 * 2^31 multiplier) then
  // RoundingDivideByPOT(1): 2 -> 1.5 -> 1 -> 1; -2 -> -1 -> -1; 10 -> 5 -> 3; -6 -> -3 -> -2.
  EXPECT_EQ(requantized(accs, knobs({{"requant", "gemmlowp"}})),
            (std::vector<int>{1, -1, 3, 2, -2, 2}));
  // float-zp (oneDNN): an odd zero point added before rounding moves every tie: 11.5 -> 12.
  EXPECT_EQ(requantized(accs, {}, 11), (std::vector<int>{0, 0, 2, 2, -2, 2}));
  EXPECT_EQ(requantized(accs, knobs({{"requant", "float-zp"}}), 11),
            (std::vector<int>{1, -1, 3, 1, -1, 2}));
}

TEST(HalvedWeights, RoundToEvenAndDoubleTheSum) {
  // ConvInteger 1x1, x = 1: each output channel is its weight; wbits=7 halves it (ties to even)
  // and doubles the sum back: 3 -> 2 -> 4, 1 -> 0 -> 0, -3 -> -2 -> -4, 5 -> 2 -> 4, -4 -> -4.
  const Tensor x = Tensor::from_vector<uint8_t>({1}, {1, 1, 1, 1});
  const Tensor w = Tensor::from_vector<int8_t>({3, 1, -3, 5, -4}, {5, 1, 1, 1});
  auto run = [&](const Numerics& n) {
    auto out = testing::run_node("ConvInteger", {x, w}, {}, 1, 13, "", n);
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    const Tensor& y = (*out)[0].tensor;
    return std::vector<int32_t>(y.data<int32_t>(), y.data<int32_t>() + y.numel());
  };
  EXPECT_EQ(run({}), (std::vector<int32_t>{3, 1, -3, 5, -4}));
  EXPECT_EQ(run(knobs({{"wbits", "7"}})), (std::vector<int32_t>{4, 0, -4, 4, -4}));
}

TEST(HalvedWeights, TheBiasJoinsTheSumScaledBack) {
  // QLinearConv 1x1, x = 1, scales 1: y = halved w doubled, plus the bias, as oneDNN's s8 x s8
  // kernels on avx2 compute it (tests/worker_backends/onednn_int8_float_test.cpp has the
  // measurement); the bias is not doubled with the halved sum. 3 -> 4 + 7 = 11, 1 -> 0 + 7 = 7.
  const Tensor x = Tensor::from_vector<int8_t>({1}, {1, 1, 1, 1});
  const Tensor w = Tensor::from_vector<int8_t>({3, 1}, {2, 1, 1, 1});
  const Tensor one = Tensor::scalar<float>(1.0f);
  const Tensor zero = Tensor::scalar<int8_t>(0);
  auto out = testing::run_node(
      "QLinearConv",
      {x, one, zero, w, one, zero, one, zero, Tensor::from_vector<int32_t>({7, 7}, {2})}, {}, 1, 13,
      "", knobs({{"wbits", "7"}}));
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const Tensor& y = (*out)[0].tensor;
  EXPECT_EQ(std::vector<int>(y.data<int8_t>(), y.data<int8_t>() + 2), (std::vector<int>{11, 7}));
}

TEST(IntegerKnobs, NameTheirCauses) {
  const auto causes = option_causes(registered_knobs(), "ref",
                                    {{"qdq", "int"}, {"madd", "sat16"}, {"requant", "gemmlowp"}});
  EXPECT_EQ(causes, (std::vector<std::string>{"int8-saturation", "integer-kernel",
                                              "requantization-rounding"}));
  EXPECT_FALSE(parse_numerics({{"madd", "sat8"}}).ok());
}

}  // namespace
}  // namespace ig::int8_kernels

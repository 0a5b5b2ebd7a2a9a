// The operator versions of opsets 20 to 28 whose meaning changed (ref_opsets.h): followed, or
// refused per node, never computed as the older version.
#include <gtest/gtest.h>

#include <cmath>

#include "../../support/run_node.h"

namespace ig {
namespace {

using testing::attr_int;
using testing::attr_string;
using testing::run_node;

template <typename T>
std::vector<T> values(const Tensor& t) {
  auto v = t.values<T>();
  return {v.begin(), v.end()};
}

TEST(Opsets20To28, GroupNormalization21ScalesPerChannel) {
  // Two groups of two channels, one value each: the normalised values are -1, 1, -1, 1.
  auto x = Tensor::from_vector<float>({1, 3, 10, 20}, {1, 4, 1, 1});
  auto per_channel = Tensor::from_vector<float>({1, 2, 3, 4}, {4});
  auto zero = Tensor::from_vector<float>({0, 0, 0, 0}, {4});
  auto r = run_node("GroupNormalization", {x, per_channel, zero},
                    {{"num_groups", attr_int(2)}, {"epsilon", testing::attr_float(0)}}, 1, 21);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(values<float>((*r)[0].tensor), (std::vector<float>{-1, 2, -3, 4}));
  // Opset 18's per-group scale is refused at 21 by its length.
  auto per_group = Tensor::from_vector<float>({1, 2}, {2});
  auto two = Tensor::from_vector<float>({0, 0}, {2});
  auto old =
      run_node("GroupNormalization", {x, per_group, two}, {{"num_groups", attr_int(2)}}, 1, 21);
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("must have 4 values"), std::string::npos);
  EXPECT_TRUE(
      run_node("GroupNormalization", {x, per_group, two}, {{"num_groups", attr_int(2)}}, 1, 18)
          .ok());
}

TEST(Opsets20To28, BitShift28TakesSignedTypes) {
  auto x = Tensor::from_vector<int8_t>({-8, -8, 5, -1, 64}, {5});
  auto s = Tensor::from_vector<int8_t>({1, 9, -1, 3, 1}, {5});
  auto right = run_node("BitShift", {x, s}, {{"direction", attr_string("RIGHT")}}, 1, 28);
  ASSERT_TRUE(right.ok()) << right.status().to_string();
  // Arithmetic shift; an amount past the width or negative leaves the sign's fill.
  EXPECT_EQ(values<int8_t>((*right)[0].tensor), (std::vector<int8_t>{-4, -1, 0, -1, 32}));
  auto left = run_node("BitShift", {x, s}, {{"direction", attr_string("LEFT")}}, 1, 28);
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(values<int8_t>((*left)[0].tensor), (std::vector<int8_t>{-16, 0, 0, -8, -128}));
  auto before = run_node("BitShift", {x, s}, {{"direction", attr_string("RIGHT")}}, 1, 27);
  ASSERT_FALSE(before.ok());
  EXPECT_EQ(before.status().code(), StatusCode::kUnsupported);
}

TEST(Opsets20To28, ModWithFmod0GivesAZeroTheDivisorsSign) {
  auto a = Tensor::from_vector<float>({0.0f, 6.0f, -0.0f}, {3});
  auto b = Tensor::from_vector<float>({-3.0f, -3.0f, 3.0f}, {3});
  auto r = run_node("Mod", {a, b}, {}, 1, 28);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const auto v = values<float>((*r)[0].tensor);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i], 0.0f);
    EXPECT_EQ(std::signbit(v[i]), std::signbit(b.values<float>()[i])) << i;
  }
}

TEST(Opsets20To28, ChangedMeaningsAreRefusedNotComputedAsBefore) {
  auto img = Tensor::from_vector<float>(std::vector<float>(16, 1.0f), {1, 1, 4, 4});
  auto crd = run_node("SpaceToDepth", {img},
                      {{"blocksize", attr_int(2)}, {"mode", attr_string("CRD")}}, 1, 28);
  ASSERT_FALSE(crd.ok());
  EXPECT_NE(crd.status().message().find("mode CRD"), std::string::npos);
  auto x = Tensor::from_vector<float>({1, 2}, {2});
  auto scale = Tensor::scalar<float>(0.5f);
  auto precise = run_node("QuantizeLinear", {x, scale}, {{"precision", attr_int(1)}}, 1, 23);
  ASSERT_FALSE(precise.ok());
  EXPECT_NE(precise.status().message().find("precision"), std::string::npos);
}

// GridSample-20 names its modes linear and cubic; on a 4-D input they compute as bilinear and
// bicubic did, and the old names are refused there.
TEST(Opsets20To28, GridSample20NamesItsModesByFamily) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
  auto grid = Tensor::from_vector<float>({-0.3f, 0.2f, 0.55f, -0.8f}, {1, 1, 2, 2});
  for (const auto& [old_name, new_name] : std::vector<std::pair<std::string, std::string>>{
           {"bilinear", "linear"}, {"bicubic", "cubic"}}) {
    auto v16 = run_node("GridSample", {x, grid}, {{"mode", attr_string(old_name)}}, 1, 16);
    auto v20 = run_node("GridSample", {x, grid}, {{"mode", attr_string(new_name)}}, 1, 20);
    ASSERT_TRUE(v16.ok() && v20.ok()) << new_name;
    EXPECT_EQ(values<float>((*v20)[0].tensor), values<float>((*v16)[0].tensor)) << new_name;
    EXPECT_FALSE(run_node("GridSample", {x, grid}, {{"mode", attr_string(old_name)}}, 1, 20).ok());
  }
  auto by_default = run_node("GridSample", {x, grid}, {}, 1, 22);  // linear
  ASSERT_TRUE(by_default.ok());
  auto bilinear = run_node("GridSample", {x, grid}, {}, 1, 16);
  EXPECT_EQ(values<float>((*by_default)[0].tensor), values<float>((*bilinear)[0].tensor));
}

// A onesided inverse DFT is an IRFFT: a one-sided spectrum in, the full real signal out, of
// length 2 * (n_in - 1) by default (the definition's words; numpy's irfft and ONNX's reference
// agree). ref returned n_in / 2 + 1 complex bins before.
TEST(Opsets20To28, OnesidedInverseDftIsAnIrfft) {
  // X = [3, 1 - 2i, 0.5 + 9i (its imaginary part, the Nyquist bin's, is dropped)], n = 4.
  auto spectrum = Tensor::from_vector<float>({3, 0, 1, -2, 0.5f, 9}, {1, 3, 2});
  for (int64_t opset : {17, 20}) {
    auto r = run_node("DFT", {spectrum}, {{"inverse", attr_int(1)}, {"onesided", attr_int(1)}}, 1,
                      opset, "");
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& y = (*r)[0].tensor;
    EXPECT_EQ(y.shape(), (Shape{1, 4, 1}));
    // x[m] = (X0 + 2 Re(X1 e^{i pi m / 2}) + Re(X2) (-1)^m) / 4
    const std::vector<double> want = {(3 + 2 * 1 + 0.5) / 4, (3 + 2 * 2 - 0.5) / 4,
                                      (3 - 2 * 1 + 0.5) / 4, (3 - 2 * 2 - 0.5) / 4};
    const auto got = values<float>(y);
    for (size_t m = 0; m < 4; ++m) EXPECT_NEAR(got[m], want[m], 1e-6) << opset << " m=" << m;
  }
  auto real_in = Tensor::from_vector<float>({1, 2, 3}, {1, 3, 1});
  auto refused = run_node("DFT", {real_in}, {{"inverse", attr_int(1)}, {"onesided", attr_int(1)}});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("takes complex input"), std::string::npos);
}

// DFT-20 takes its axis as an input (default -2, the last signal axis) where 17 had an attribute
// (default 1): the same transform either way.
TEST(Opsets20To28, Dft20TakesItsAxisAsAnInput) {
  auto signal = Tensor::from_vector<float>({1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 4, 1});
  auto v17 = run_node("DFT", {signal}, {{"axis", attr_int(2)}}, 1, 17);
  ASSERT_TRUE(v17.ok()) << v17.status().to_string();
  auto axis = Tensor::scalar<int64_t>(2);
  auto v20 = run_node("DFT", {signal, Tensor(), axis}, {}, 1, 20);
  ASSERT_TRUE(v20.ok()) << v20.status().to_string();
  EXPECT_EQ(values<float>((*v20)[0].tensor), values<float>((*v17)[0].tensor));
  auto by_default = run_node("DFT", {signal}, {}, 1, 20);  // -2: axis 2 of this rank-4 input
  ASSERT_TRUE(by_default.ok());
  EXPECT_EQ(values<float>((*by_default)[0].tensor), values<float>((*v17)[0].tensor));
  EXPECT_EQ((*v17)[0].tensor.shape(), (Shape{1, 2, 4, 2}));
}

// New operators: RMSNormalization (23) and Swish (24), as their definitions read, against the
// same formulas in double (each within a float rounding or two).
TEST(Opsets20To28, RmsNormalizationAndSwishFollowTheirDefinitions) {
  const std::vector<float> xs = {0.5f, -1.25f, 3.0f, 0.0f, -2.0f, 1.0f, 0.25f, 4.0f};
  auto x = Tensor::from_vector<float>(xs, {2, 4});
  auto scale = Tensor::from_vector<float>({1.0f, 0.5f, 2.0f, -1.0f}, {4});
  auto rms =
      run_node("RMSNormalization", {x, scale}, {{"epsilon", testing::attr_float(1e-5f)}}, 1, 23);
  ASSERT_TRUE(rms.ok()) << rms.status().to_string();
  const auto got = values<float>((*rms)[0].tensor);
  for (int r = 0; r < 2; ++r) {
    double ms = 0;
    for (int i = 0; i < 4; ++i) ms += double(xs[r * 4 + i]) * xs[r * 4 + i] / 4;
    for (int i = 0; i < 4; ++i) {
      const double want = xs[r * 4 + i] / std::sqrt(ms + 1e-5) * scale.values<float>()[i];
      EXPECT_NEAR(got[r * 4 + i], want, 4e-7 * std::fabs(want) + 1e-7) << r << "," << i;
    }
  }
  EXPECT_FALSE(run_node("RMSNormalization", {x, scale}, {}, 1, 22).ok());  // new in 23

  auto sw = run_node("Swish", {x}, {{"alpha", testing::attr_float(1.5f)}}, 1, 24);
  ASSERT_TRUE(sw.ok()) << sw.status().to_string();
  const auto y = values<float>((*sw)[0].tensor);
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = xs[i] / (1 + std::exp(-1.5 * xs[i]));
    EXPECT_NEAR(y[i], want, 4e-7 * std::fabs(want) + 1e-7) << i;
  }
}

// CumProd (26) runs a product as CumSum runs a sum; SwiGLU (28) is Swish(A) * B, shapes equal.
TEST(Opsets20To28, CumProdAndSwiGluFollowTheirDefinitions) {
  auto x = Tensor::from_vector<float>({1, 2, 3, 4}, {4});
  auto axis = Tensor::scalar<int64_t>(0);
  auto cp = run_node("CumProd", {x, axis}, {}, 1, 26);
  ASSERT_TRUE(cp.ok()) << cp.status().to_string();
  EXPECT_EQ(values<float>((*cp)[0].tensor), (std::vector<float>{1, 2, 6, 24}));
  auto rev =
      run_node("CumProd", {x, axis}, {{"exclusive", attr_int(1)}, {"reverse", attr_int(1)}}, 1, 26);
  ASSERT_TRUE(rev.ok()) << rev.status().to_string();
  EXPECT_EQ(values<float>((*rev)[0].tensor), (std::vector<float>{24, 12, 4, 1}));
  EXPECT_FALSE(run_node("CumProd", {x, axis}, {}, 1, 25).ok());  // new in 26

  const std::vector<float> as = {0.5f, -1.25f, 3.0f, -2.0f}, bs = {2.0f, 0.5f, -1.0f, 4.0f};
  auto a = Tensor::from_vector<float>(as, {2, 2});
  auto b = Tensor::from_vector<float>(bs, {2, 2});
  auto sg = run_node("SwiGLU", {a, b}, {{"alpha", testing::attr_float(1.5f)}}, 1, 28);
  ASSERT_TRUE(sg.ok()) << sg.status().to_string();
  const auto y = values<float>((*sg)[0].tensor);
  for (size_t i = 0; i < as.size(); ++i) {
    const double want = as[i] / (1 + std::exp(-1.5 * as[i])) * bs[i];
    EXPECT_NEAR(y[i], want, 1e-6 * std::fabs(want) + 1e-7) << i;
  }
  auto broadcast = run_node("SwiGLU", {a, Tensor::from_vector<float>({1, 2}, {2})}, {}, 1, 28);
  ASSERT_FALSE(broadcast.ok());
  EXPECT_NE(broadcast.status().message().find("must have one shape and type"), std::string::npos);
}

// BitCast (26): the same bytes as another type of the same width.
TEST(Opsets20To28, BitCastKeepsTheBytes) {
  auto x = Tensor::from_vector<float>({1.0f, -2.0f}, {2});
  auto r = run_node("BitCast", {x}, {{"to", attr_int(6)}}, 1, 26);  // int32
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(values<int32_t>((*r)[0].tensor), (std::vector<int32_t>{0x3f800000, -0x40000000}));
  auto ints = Tensor::from_vector<int32_t>({1, 2}, {2});
  auto wide = run_node("BitCast", {ints}, {{"to", attr_int(7)}}, 1, 26);  // int64
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.status().message().find("int32 and int64 differ in width"), std::string::npos)
      << wide.status().message();
  // A float the dtype knob holds wider (the fp64 oracle) has no 32 bits to reinterpret.
  auto held =
      run_node("BitCast", {Tensor::from_vector<double>({1.0}, {1})}, {{"to", attr_int(6)}}, 1, 26);
  ASSERT_FALSE(held.ok());
  EXPECT_NE(held.status().message().find("held at another width"), std::string::npos)
      << held.status().message();
}

TEST(Opsets20To28, QuantizeLinear21WritesSixteenBitTypes) {
  auto x = Tensor::from_vector<float>({-70000.0f, -1.5f, 2.5f, 1000.25f, 70000.0f}, {5});
  auto scale = Tensor::scalar<float>(0.5f);
  auto signed_zero = Tensor::scalar<int16_t>(int16_t{1});
  auto s = run_node("QuantizeLinear", {x, scale, signed_zero}, {}, 1, 21);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  // Half-even rounding of x / 0.5, plus the zero point, saturated at int16's limits.
  EXPECT_EQ(values<int16_t>((*s)[0].tensor), (std::vector<int16_t>{-32768, -2, 6, 2001, 32767}));
  auto unsigned_zero = Tensor::scalar<uint16_t>(uint16_t{0});
  auto u = run_node("QuantizeLinear", {x, scale, unsigned_zero}, {}, 1, 21);
  ASSERT_TRUE(u.ok()) << u.status().to_string();
  EXPECT_EQ(values<uint16_t>((*u)[0].tensor), (std::vector<uint16_t>{0, 0, 5, 2000, 65535}));
  // Before opset 21 a 16-bit zero point is not a QuantizeLinear's.
  auto old = run_node("QuantizeLinear", {x, scale, signed_zero}, {}, 1, 19);
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("needs opset 21"), std::string::npos)
      << old.status().to_string();
}

}  // namespace
}  // namespace ig

// Tests for the neural-network operators (Conv, ConvTranspose, Gemm, MatMul, pooling,
// normalisation, quantisation).
#include <gtest/gtest.h>

#include <cmath>

#include "../../support/run_node.h"

namespace ig {
namespace {

using testing::attr_float;
using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::run_node;

template <typename T>
std::vector<T> values_of(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

Tensor iota(Shape shape, float start = 0) {
  Tensor t(DType::kFloat32, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + static_cast<float>(i);
  return t;
}

TEST(Conv, SameUpperPadsAtTheEnd) {
  // 1x1x4 input, kernel 2 of ones, stride 1: SAME_UPPER pads one zero after the input.
  auto out = run_node("Conv", {iota({1, 1, 4}, 1), Tensor::from_vector<float>({1, 1}, {1, 1, 2})},
                      {{"auto_pad", attr_string("SAME_UPPER")}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor.shape(), (Shape{1, 1, 4}));
  EXPECT_EQ(values_of<float>((*out)[0].tensor), (std::vector<float>{3, 5, 7, 4}));
  auto lower = run_node("Conv", {iota({1, 1, 4}, 1), Tensor::from_vector<float>({1, 1}, {1, 1, 2})},
                        {{"auto_pad", attr_string("SAME_LOWER")}});
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(values_of<float>((*lower)[0].tensor), (std::vector<float>{1, 3, 5, 7}));
}

TEST(Conv, DepthwiseWithBiasStrideAndDilation) {
  // 2 channels, group 2, kernel 2 dilated by 2, stride 2 over length 6.
  auto w = Tensor::from_vector<float>({1, 1, 1, -1}, {2, 1, 2});
  auto b = Tensor::from_vector<float>({10, 20}, {2});
  auto out = run_node(
      "Conv", {iota({1, 2, 6}), w, b},
      {{"group", attr_int(2)}, {"strides", attr_ints({2})}, {"dilations", attr_ints({2})}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor.shape(), (Shape{1, 2, 2}));
  // ch0: x0+x2=2, x2+x4=6 (+10); ch1: x6-x8=-2, x8-x10=-2 (+20)
  EXPECT_EQ(values_of<float>((*out)[0].tensor), (std::vector<float>{12, 16, 18, 18}));
}

TEST(Conv, ChannelMismatchNamesNodeAndShapes) {
  auto out = run_node("Conv", {iota({1, 3, 4, 4}), iota({2, 2, 3, 3})});
  ASSERT_FALSE(out.ok());
  const std::string& msg = out.status().message();
  EXPECT_NE(msg.find("Conv 'n0'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1,3,4,4]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[2,2,3,3]"), std::string::npos) << msg;
}

TEST(Conv, NaNPropagatesThroughTheDotProduct) {
  Tensor x = iota({1, 1, 3});
  x.data<float>()[1] = NAN;
  auto out = run_node("Conv", {x, Tensor::from_vector<float>({1, 1}, {1, 1, 2})});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(std::isnan((*out)[0].tensor.data<float>()[0]));
  EXPECT_TRUE(std::isnan((*out)[0].tensor.data<float>()[1]));
}

TEST(ConvTranspose, StrideAndOutputPadding) {
  // x = [1, 2], w = [1, 1], stride 2, output_padding 1: y = [1, 1, 2, 2, 0].
  auto out =
      run_node("ConvTranspose", {iota({1, 1, 2}, 1), Tensor::from_vector<float>({1, 1}, {1, 1, 2})},
               {{"strides", attr_ints({2})}, {"output_padding", attr_ints({1})}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values_of<float>((*out)[0].tensor), (std::vector<float>{1, 1, 2, 2, 0}));
}

TEST(Gemm, TransposeAlphaBetaAndRowBias) {
  auto a = Tensor::from_vector<float>({1, 2, 3, 4}, {2, 2});  // A^T = [[1,3],[2,4]]
  auto b = Tensor::from_vector<float>({1, 0, 0, 1}, {2, 2});
  auto c = Tensor::from_vector<float>({100, 200}, {2});
  auto out =
      run_node("Gemm", {a, b, c},
               {{"transA", attr_int(1)}, {"alpha", attr_float(2)}, {"beta", attr_float(0.5f)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values_of<float>((*out)[0].tensor), (std::vector<float>{52, 106, 54, 108}));
}

TEST(Gemm, MissingCIsAnErrorBeforeOpset11) {
  auto a = iota({2, 2});
  auto ok = run_node("Gemm", {a, a}, {}, 1, 13);
  EXPECT_TRUE(ok.ok());
  auto old = run_node("Gemm", {a, a}, {}, 1, 9);
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("opset 11"), std::string::npos);
}

TEST(MatMul, OneDimensionalOperandsAndBatchBroadcast) {
  auto v = run_node("MatMul", {iota({3}, 1), iota({3}, 1)});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ((*v)[0].tensor.shape(), Shape{});
  EXPECT_EQ((*v)[0].tensor.data<float>()[0], 14.0f);
  // [2,1,2,2] x [3,2,1] -> [2,3,2,1]
  auto out = run_node("MatMul", {iota({2, 1, 2, 2}), iota({3, 2, 1})});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor.shape(), (Shape{2, 3, 2, 1}));
  // batch (1, 2): A = [[4,5],[6,7]], B = [4,5] -> [41, 59]
  EXPECT_EQ((*out)[0].tensor.data<float>()[10], 41.0f);
  EXPECT_EQ((*out)[0].tensor.data<float>()[11], 59.0f);
  auto bad = run_node("MatMul", {iota({2, 3}), iota({2, 3})});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("MatMul 'n0'"), std::string::npos);
}

TEST(Pool, MaxPoolIndicesColumnMajorAndNaN) {
  Tensor x = Tensor::from_vector<float>({0, 9, 2, 3}, {1, 1, 2, 2});
  auto out = run_node("MaxPool", {x},
                      {{"kernel_shape", attr_ints({2, 2})}, {"storage_order", attr_int(1)}}, 2, 12);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor.data<float>()[0], 9.0f);
  EXPECT_EQ((*out)[1].tensor.data<int64_t>()[0], 2);  // (h=0, w=1) column-major: 0 + 1*2
  x.data<float>()[2] = NAN;
  auto nan = run_node("MaxPool", {x}, {{"kernel_shape", attr_ints({2, 2})}});
  ASSERT_TRUE(nan.ok());
  EXPECT_TRUE(std::isnan((*nan)[0].tensor.data<float>()[0]));
}

TEST(Pool, AveragePoolCountIncludePad) {
  auto attrs = std::map<std::string, Attribute>{{"kernel_shape", attr_ints({2})},
                                                {"pads", attr_ints({1, 0})}};
  auto ex = run_node("AveragePool", {iota({1, 1, 2}, 2)}, attrs);
  ASSERT_TRUE(ex.ok()) << ex.status().to_string();
  EXPECT_EQ(values_of<float>((*ex)[0].tensor), (std::vector<float>{2, 2.5f}));
  attrs["count_include_pad"] = attr_int(1);
  auto in = run_node("AveragePool", {iota({1, 1, 2}, 2)}, attrs);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(values_of<float>((*in)[0].tensor), (std::vector<float>{1, 2.5f}));
}

TEST(Pool, DilationsOfAverageFromOpset19AndLpFromOpset18) {
  // 1x1x5, kernel 2, dilation 2: windows {0,2}, {1,3}, {2,4} of 0..4.
  const auto attrs = std::map<std::string, Attribute>{{"kernel_shape", attr_ints({2})},
                                                      {"dilations", attr_ints({2})}};
  auto avg = run_node("AveragePool", {iota({1, 1, 5})}, attrs, 1, 19);
  ASSERT_TRUE(avg.ok()) << avg.status().to_string();
  EXPECT_EQ(values_of<float>((*avg)[0].tensor), (std::vector<float>{1, 2, 3}));
  auto lp_attrs = attrs;
  lp_attrs["p"] = attr_int(1);
  auto lp = run_node("LpPool", {iota({1, 1, 5})}, lp_attrs, 1, 18);
  ASSERT_TRUE(lp.ok()) << lp.status().to_string();
  EXPECT_EQ(values_of<float>((*lp)[0].tensor), (std::vector<float>{2, 4, 6}));
}

TEST(Norm, BatchNormInferenceAndSpatialZeroBeforeOpset9) {
  auto x = iota({1, 2, 2});
  auto one = Tensor::from_vector<float>({1, 1}, {2});
  auto zero = Tensor::from_vector<float>({0, 0}, {2});
  auto mean = Tensor::from_vector<float>({1, 2}, {2});
  auto out = run_node("BatchNormalization", {x, one, zero, mean, one}, {{"epsilon", attr_float(0)}},
                      1, 15);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values_of<float>((*out)[0].tensor), (std::vector<float>{-1, 0, 0, 1}));
  auto pe = Tensor::from_vector<float>({0, 1, 2, 3}, {2, 2});
  auto ones4 = Tensor::from_vector<float>({1, 1, 1, 1}, {2, 2});
  auto zeros4 = Tensor::from_vector<float>({0, 0, 0, 0}, {2, 2});
  auto sp = run_node("BatchNormalization", {x, ones4, zeros4, pe, ones4},
                     {{"epsilon", attr_float(0)}, {"spatial", attr_int(0)}}, 1, 7);
  ASSERT_TRUE(sp.ok()) << sp.status().to_string();
  EXPECT_EQ(values_of<float>((*sp)[0].tensor), (std::vector<float>{0, 0, 0, 0}));
}

TEST(Norm, LayerNormNegativeAxisAndStatOutputs) {
  auto x = Tensor::from_vector<float>({1, 3, 2, 2}, {2, 2});
  auto out = run_node("LayerNormalization", {x, Tensor::from_vector<float>({1, 1}, {2})},
                      {{"axis", attr_int(-1)}, {"epsilon", attr_float(0)}}, 3, 17);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const std::vector<float> y = values_of<float>((*out)[0].tensor);
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_TRUE(std::isnan(y[2]));  // zero variance with epsilon 0: 0 * inf
  EXPECT_EQ((*out)[1].tensor.shape(), (Shape{2, 1}));
  EXPECT_EQ(values_of<float>((*out)[1].tensor), (std::vector<float>{2, 2}));
  EXPECT_TRUE(std::isinf((*out)[2].tensor.data<float>()[1]));  // zero variance, epsilon 0
}

TEST(Quant, QuantizeRoundsHalfToEvenAndSaturates) {
  auto x = Tensor::from_vector<float>({0.5f, 1.5f, 2.5f, -300, 300}, {5});
  auto out = run_node("QuantizeLinear", {x, Tensor::scalar<float>(1), Tensor::scalar<int8_t>(1)},
                      {}, 1, 13);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  // round(x) + zp: 0+1, 2+1, 2+1, saturated
  EXPECT_EQ(values_of<int8_t>((*out)[0].tensor), (std::vector<int8_t>{1, 3, 3, -128, 127}));
}

TEST(Quant, PerAxisScaleNeedsOpset13) {
  auto x = Tensor::from_vector<uint8_t>({10, 10, 10, 10}, {2, 2});
  auto s = Tensor::from_vector<float>({1, 2}, {2});
  auto z = Tensor::from_vector<uint8_t>({0, 5}, {2});
  auto out = run_node("DequantizeLinear", {x, s, z}, {{"axis", attr_int(-1)}}, 1, 13);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(values_of<float>((*out)[0].tensor), (std::vector<float>{10, 10, 10, 10}));
  auto old = run_node("DequantizeLinear", {x, s, z}, {}, 1, 10);
  EXPECT_FALSE(old.ok());
}

TEST(Conv, Float16AccumulatesInFloatAndRoundsOnce) {
  // Rounding each partial sum to fp16 would lose both 2^-11 terms (ties to even); one rounding at
  // the end keeps their sum 2^-10, exactly one fp16 ulp above 1.
  Tensor x(DType::kFloat16, {1, 1, 3});
  Tensor w(DType::kFloat16, {1, 1, 3});
  const float xs[] = {1.0f, 0x1.0p-11f, 0x1.0p-11f};
  for (int i = 0; i < 3; ++i) {
    x.data<Float16>()[i] = Float16(xs[i]);
    w.data<Float16>()[i] = Float16(1.0f);
  }
  auto out = run_node("Conv", {x, w});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor.data<Float16>()[0].bits, Float16(1.0f + 0x1.0p-10f).bits);
}

TEST(ConvInteger, ZeroPointsPerOutputChannel) {
  auto x = Tensor::from_vector<uint8_t>({10, 20}, {1, 1, 2});
  auto w = Tensor::from_vector<int8_t>({1, 1, 3, 3}, {2, 1, 2});
  auto out = run_node(
      "ConvInteger", {x, w, Tensor::scalar<uint8_t>(10), Tensor::from_vector<int8_t>({0, 1}, {2})});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  // ch0: 0*1 + 10*1 = 10; ch1: 0*2 + 10*2 = 20
  EXPECT_EQ(values_of<int32_t>((*out)[0].tensor), (std::vector<int32_t>{10, 20}));
}

TEST(MatMul, QLinearMatMulRequantises) {
  auto a = Tensor::from_vector<uint8_t>({2, 4}, {1, 2});
  auto b = Tensor::from_vector<uint8_t>({3, 5}, {2, 1});
  // (2*3 + 4*5) * 0.5 * 1 / 2 = 6.5 -> ties to even 6, + zero point 1 = 7.
  auto out = run_node("QLinearMatMul", {a, Tensor::scalar<float>(0.5f), Tensor::scalar<uint8_t>(0),
                                        b, Tensor::scalar<float>(1), Tensor::scalar<uint8_t>(0),
                                        Tensor::scalar<float>(2), Tensor::scalar<uint8_t>(1)});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor.data<uint8_t>()[0], 7);
}

TEST(Quant, DynamicQuantizeIncludesZeroInTheRange) {
  auto out =
      run_node("DynamicQuantizeLinear", {Tensor::from_vector<float>({1, 2.55f}, {2})}, {}, 3);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_FLOAT_EQ((*out)[1].tensor.data<float>()[0], 0.01f);
  EXPECT_EQ((*out)[2].tensor.data<uint8_t>()[0], 0);
  EXPECT_EQ(values_of<uint8_t>((*out)[0].tensor), (std::vector<uint8_t>{100, 255}));
}

TEST(Pool, MaxUnpoolRejectsOutOfRangeIndex) {
  auto x = Tensor::from_vector<float>({1}, {1, 1, 1, 1});
  auto i = Tensor::from_vector<int64_t>({7}, {1, 1, 1, 1});
  auto out = run_node("MaxUnpool", {x, i}, {{"kernel_shape", attr_ints({2, 2})}}, 1, 11);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("MaxUnpool 'n0'"), std::string::npos);
  i.data<int64_t>()[0] = 3;
  auto ok = run_node("MaxUnpool", {x, i}, {{"kernel_shape", attr_ints({2, 2})}}, 1, 11);
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_EQ(values_of<float>((*ok)[0].tensor), (std::vector<float>{0, 0, 0, 1}));
}

TEST(Norm, LrnWindowClipsAtTheChannelEdges) {
  // size 3, alpha 3, beta 1, bias 0: y = x / (x_{c-1}^2 + x_c^2 + x_{c+1}^2).
  auto x = Tensor::from_vector<float>({1, 2}, {1, 2, 1});
  auto out = run_node("LRN", {x},
                      {{"size", attr_int(3)},
                       {"alpha", attr_float(3)},
                       {"beta", attr_float(1)},
                       {"bias", attr_float(0)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_FLOAT_EQ((*out)[0].tensor.data<float>()[0], 1.0f / 5);
  EXPECT_FLOAT_EQ((*out)[0].tensor.data<float>()[1], 2.0f / 5);
}

TEST(Pool, MaxRoiPoolBinsTheScaledRoi) {
  // 4x4 input 0..15, ROI (x 0..3, y 0..1) at scale 1 into 1x2 bins: columns 0-1 and 2-3 of rows
  // 0-1, maxima 5 and 7.
  auto rois = Tensor::from_vector<float>({0, 0, 0, 3, 1}, {1, 5});
  auto out =
      run_node("MaxRoiPool", {iota({1, 1, 4, 4}), rois}, {{"pooled_shape", attr_ints({1, 2})}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor.shape(), (Shape{1, 1, 1, 2}));
  EXPECT_EQ(values_of<float>((*out)[0].tensor), (std::vector<float>{5, 7}));
}

}  // namespace
}  // namespace ig

// ONNX Runtime's QOperator contrib kernels on ref (ops/ort_qlinear.cpp) against their documented
// formulas written out here; on whole models, against ONNX Runtime 1.31 bit for bit
// (tests/corpus/run_reduced.py, layout ort-qop-pc-u8).
#include <gtest/gtest.h>

#include <cmath>

#include "../../support/run_node.h"

namespace ig::testing::ort_qlinear {
namespace {

constexpr const char* kMs = "com.microsoft";

Tensor u8(std::vector<uint8_t> v, Shape s) { return Tensor::from_vector(v, std::move(s)); }
Tensor f(float v) { return Tensor::scalar<float>(v); }
Tensor zp(uint8_t v) { return Tensor::scalar<uint8_t>(v); }

int q(double v, int zero_point) {
  return std::clamp(static_cast<int>(std::nearbyint(v)) + zero_point, 0, 255);
}

TEST(OrtQLinear, AddAndMulDequantizeComputeAndQuantizeWithBroadcasting) {
  const Tensor a = u8({0, 10, 128, 200, 255, 7}, {2, 3});
  const Tensor b = u8({100, 3, 250}, {3});
  for (const char* op : {"QLinearAdd", "QLinearMul"}) {
    auto out =
        run_node(op, {a, f(0.05f), zp(128), b, f(0.02f), zp(5), f(0.1f), zp(120)}, {}, 1, 1, kMs);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    const Tensor& y = (*out)[0].tensor;
    ASSERT_EQ(y.shape(), (Shape{2, 3}));
    for (int64_t i = 0; i < 6; ++i) {
      const float va = 0.05f * static_cast<float>(a.data<uint8_t>()[i] - 128);
      const float vb = 0.02f * static_cast<float>(b.data<uint8_t>()[i % 3] - 5);
      const float v = std::string(op) == "QLinearAdd" ? va + vb : va * vb;
      EXPECT_EQ(y.data<uint8_t>()[i], q(v / 0.1f, 120)) << op << " " << i;
    }
  }
}

TEST(OrtQLinear, GlobalAveragePoolIsTheQuantizedMeanPerChannel) {
  // [1, 2, 2, 2]: channel 0 averages 10, 20, 30, 41; channel 1 is constant.
  const Tensor x = u8({10, 20, 30, 41, 9, 9, 9, 9}, {1, 2, 2, 2});
  auto out =
      run_node("QLinearGlobalAveragePool", {x, f(0.5f), zp(3), f(0.25f), zp(1)}, {}, 1, 1, kMs);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const Tensor& y = (*out)[0].tensor;
  ASSERT_EQ(y.shape(), (Shape{1, 2, 1, 1}));
  EXPECT_EQ(y.data<uint8_t>()[0], q((25.25 - 3) * 0.5 / 0.25, 1));  // 44.5 rounds to even: 44
  EXPECT_EQ(y.data<uint8_t>()[1], q((9 - 3) * 0.5 / 0.25, 1));
  auto nhwc = run_node("QLinearGlobalAveragePool",
                       {x.reshaped({1, 2, 2, 2}), f(0.5f), zp(3), f(0.25f), zp(1)},
                       {{"channels_last", attr_int(1)}}, 1, 1, kMs);
  ASSERT_TRUE(nhwc.ok()) << nhwc.status().to_string();
  // Channels last: channel 0 is 10, 30, 9, 9.
  EXPECT_EQ((*nhwc)[0].tensor.shape(), (Shape{1, 1, 1, 2}));
  EXPECT_EQ((*nhwc)[0].tensor.data<uint8_t>()[0], q((14.5 - 3) * 0.5 / 0.25, 1));
}

TEST(OrtQLinear, QGemmIsTheIntegerKernelQuantizedOrFloat) {
  const Tensor a = u8({1, 2, 3, 250, 0, 7}, {2, 3});                           // [M=2, K=3]
  const Tensor b = Tensor::from_vector<int8_t>({1, -2, 3, 4, -5, 6}, {2, 3});  // transB: [N=2, K]
  const Tensor bias = Tensor::from_vector<int32_t>({10, -20}, {2});
  const Tensor bz = Tensor::scalar<int8_t>(0);
  std::map<std::string, Attribute> trans_b = {{"transB", attr_int(1)}};
  auto quantized = run_node("QGemm", {a, f(0.1f), zp(2), b, f(0.05f), bz, bias, f(0.02f), zp(128)},
                            trans_b, 1, 1, kMs);
  ASSERT_TRUE(quantized.ok()) << quantized.status().to_string();
  auto real = run_node("QGemm", {a, f(0.1f), zp(2), b, f(0.05f), bz, bias}, trans_b, 1, 1, kMs);
  ASSERT_TRUE(real.ok()) << real.status().to_string();
  ASSERT_EQ((*real)[0].tensor.dtype(), DType::kFloat32);
  for (int64_t m = 0; m < 2; ++m) {
    for (int64_t n = 0; n < 2; ++n) {
      int32_t acc = bias.data<int32_t>()[n];
      for (int64_t k = 0; k < 3; ++k)
        acc += (a.data<uint8_t>()[m * 3 + k] - 2) * b.data<int8_t>()[n * 3 + k];
      const float scale =
          static_cast<float>(static_cast<double>(0.1f) * static_cast<double>(0.05f));
      EXPECT_EQ((*real)[0].tensor.data<float>()[m * 2 + n], static_cast<float>(acc) * scale);
      EXPECT_EQ((*quantized)[0].tensor.data<uint8_t>()[m * 2 + n],
                q(static_cast<float>(acc) * (0.1f * 0.05f / 0.02f), 128));
    }
  }
  auto trans_a = run_node("QGemm", {a, f(0.1f), zp(2), b, f(0.05f), bz},
                          {{"transA", attr_int(1)}, {"transB", attr_int(1)}}, 1, 1, kMs);
  ASSERT_FALSE(trans_a.ok());
  EXPECT_NE(trans_a.status().message().find("transA"), std::string::npos);
}

TEST(OrtQLinear, SoftmaxQuantizesTheExactSoftmaxAlongItsAxis) {
  const Tensor x = u8({100, 110, 120, 130, 7, 7, 7, 7}, {2, 4});
  auto out = run_node("QLinearSoftmax", {x, f(0.1f), zp(100), f(1.0f / 256), zp(0)}, {}, 1, 1, kMs);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const Tensor& y = (*out)[0].tensor;
  double sum = 0;
  for (int k = 0; k < 4; ++k) sum += std::exp(0.1f * (10.0 * k - 30));
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(y.data<uint8_t>()[k], q(std::exp(0.1f * (10.0 * k - 30)) / sum * 256, 0)) << k;
    EXPECT_EQ(y.data<uint8_t>()[4 + k], 64);  // equal inputs: a quarter each
  }
}

}  // namespace
}  // namespace ig::testing::ort_qlinear

// Bad quantization parameters in the reference kernels: each is an error naming the node, the
// input (by its ONNX name and the model's) and the problem, before anything is computed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../../support/run_node.h"

namespace ig {
namespace {

using testing::attr_int;
using testing::run_node;

void expect_error(const Expected<std::vector<Value>>& out, StatusCode code,
                  std::initializer_list<std::string> fragments) {
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), code) << out.status().to_string();
  for (const auto& f : fragments)
    EXPECT_NE(out.status().message().find(f), std::string::npos) << out.status().message();
}

const Tensor kX = Tensor::from_vector<float>({0.5f, 1.5f, -2, 4}, {2, 2});

TEST(QuantParams, ScaleZeroNegativeNanOrInfIsRefused) {
  for (float s : {0.0f, -0.5f, std::numeric_limits<float>::quiet_NaN(),
                  std::numeric_limits<float>::infinity()}) {
    auto out = run_node("QuantizeLinear",
                        {kX, Tensor::scalar<float>(s), Tensor::scalar<uint8_t>(0)}, {}, 1, 13);
    expect_error(out, StatusCode::kInvalidArgument,
                 {"QuantizeLinear 'n0': y_scale 'in1' is ", "a scale must be finite and above 0"});
  }
}

TEST(QuantParams, PerAxisScaleNamesTheBadElement) {
  auto x = Tensor::from_vector<uint8_t>({1, 2, 3, 4}, {2, 2});
  auto out = run_node("DequantizeLinear", {x, Tensor::from_vector<float>({0.5f, 0}, {2})},
                      {{"axis", attr_int(1)}}, 1, 13);
  expect_error(out, StatusCode::kInvalidArgument,
               {"DequantizeLinear 'n0': x_scale 'in1' is 0 (element 1)"});
}

TEST(QuantParams, ZeroPointOfAnotherTypeThanItsData) {
  auto x = Tensor::from_vector<uint8_t>({1, 2, 3, 4}, {2, 2});
  auto out = run_node("DequantizeLinear",
                      {x, Tensor::scalar<float>(0.5f), Tensor::scalar<int8_t>(1)}, {}, 1, 13);
  expect_error(out, StatusCode::kInvalidArgument,
               {"x_zero_point 'in2' is int8 but x 'in0' is uint8; ONNX requires the same type"});
  auto conv = run_node("ConvInteger", {Tensor::from_vector<uint8_t>({1, 2}, {1, 1, 2}),
                                       Tensor::from_vector<uint8_t>({1, 1}, {1, 1, 2}),
                                       Tensor::scalar<uint8_t>(0), Tensor::scalar<int8_t>(0)});
  expect_error(conv, StatusCode::kInvalidArgument,
               {"ConvInteger 'n0': w_zero_point 'in3' is int8 but w 'in1' is uint8"});
}

TEST(QuantParams, DataOfAWiderTypeIsUnsupported) {
  auto out = run_node("ConvInteger", {Tensor::from_vector<int16_t>({1, 2}, {1, 1, 2}),
                                      Tensor::from_vector<int8_t>({1, 1}, {1, 1, 2})});
  expect_error(out, StatusCode::kUnsupported,
               {"ConvInteger 'n0': x 'in0' is int16; the reference kernels quantize to int8"});
}

TEST(QuantParams, QLinearMatMulChecksEveryScaleAndZeroPoint) {
  auto a = Tensor::from_vector<uint8_t>({2, 4}, {1, 2});
  auto b = Tensor::from_vector<uint8_t>({3, 5}, {2, 1});
  auto run = [&](float b_scale, Tensor b_zp, float y_scale) {
    return run_node("QLinearMatMul", {a, Tensor::scalar<float>(0.5f), Tensor::scalar<uint8_t>(0), b,
                                      Tensor::scalar<float>(b_scale), b_zp,
                                      Tensor::scalar<float>(y_scale), Tensor::scalar<uint8_t>(1)});
  };
  expect_error(run(-1, Tensor::scalar<uint8_t>(0), 2), StatusCode::kInvalidArgument,
               {"QLinearMatMul 'n0': b_scale 'in4' is -1 (element 0)"});
  expect_error(run(1, Tensor::scalar<uint8_t>(0), 0), StatusCode::kInvalidArgument,
               {"y_scale 'in6' is 0"});
  expect_error(run(1, Tensor::scalar<int8_t>(0), 2), StatusCode::kInvalidArgument,
               {"b_zero_point 'in5' is int8 but b 'in3' is uint8"});
  EXPECT_TRUE(run(1, Tensor::scalar<uint8_t>(0), 2).ok());
}

TEST(QuantParams, QLinearConvChecksWeightScalesPerChannel) {
  auto x = Tensor::from_vector<uint8_t>({10, 20}, {1, 1, 2});
  auto w = Tensor::from_vector<int8_t>({1, 1, 3, 3}, {2, 1, 2});
  auto out = run_node("QLinearConv", {x, Tensor::scalar<float>(1), Tensor::scalar<uint8_t>(0), w,
                                      Tensor::from_vector<float>({1, std::nanf("")}, {2}),
                                      Tensor::scalar<int8_t>(0), Tensor::scalar<float>(1),
                                      Tensor::scalar<uint8_t>(0)});
  expect_error(out, StatusCode::kInvalidArgument,
               {"QLinearConv 'n0': w_scale 'in4' is nan (element 1)"});
}

TEST(QuantParams, ShapesMustFitTheAxisAndEachOther) {
  auto x = Tensor::from_vector<uint8_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto axis = run_node("DequantizeLinear", {x, Tensor::from_vector<float>({1, 1}, {2})},
                       {{"axis", attr_int(1)}}, 1, 13);
  expect_error(axis, StatusCode::kInvalidArgument,
               {"x_scale 'in1' has shape [2], expected a scalar or [3] (one per element along "
                "the axis)"});
  auto mixed = run_node(
      "DequantizeLinear",
      {x, Tensor::from_vector<float>({1, 1, 1}, {3}), Tensor::from_vector<uint8_t>({0, 0}, {2})},
      {{"axis", attr_int(1)}}, 1, 13);
  expect_error(mixed, StatusCode::kInvalidArgument, {"must have the same shape"});
}

TEST(QuantParams, BlockedQuantizationAndOutputDtype) {
  // Blocks (opset 21): the scale has X's shape but one value per block along the axis; a
  // scalar scale does not fit blocks.
  auto misfit = run_node("QuantizeLinear", {kX, Tensor::scalar<float>(1)},
                         {{"block_size", attr_int(2)}}, 1, 21);
  expect_error(misfit, StatusCode::kInvalidArgument,
               {"scale float[] does not fit X float[2,2] in blocks of 2 along axis 1"});
  // X [[0.5, 1.5], [-2, 4]] in blocks of 2 along axis 1: one scale per row.
  auto blocked = run_node("QuantizeLinear",
                          {kX, Tensor::from_vector<float>({0.5f, 2}, {2, 1}),
                           Tensor::from_vector<int8_t>({0, 1}, {2, 1})},
                          {{"block_size", attr_int(2)}}, 1, 21);
  ASSERT_TRUE(blocked.ok()) << blocked.status().to_string();
  EXPECT_EQ((*blocked)[0].tensor.to_int64_vector(), (std::vector<int64_t>{1, 3, 0, 3}));
  auto clash = run_node("QuantizeLinear", {kX, Tensor::scalar<float>(1), Tensor::scalar<int8_t>(0)},
                        {{"output_dtype", attr_int(2)}}, 1, 21);
  expect_error(clash, StatusCode::kInvalidArgument,
               {"output_dtype uint8 differs from the zero point's type int8"});
  auto typed = run_node("QuantizeLinear", {kX, Tensor::scalar<float>(1)},
                        {{"output_dtype", attr_int(3)}}, 1, 21);
  ASSERT_TRUE(typed.ok()) << typed.status().to_string();
  EXPECT_EQ((*typed)[0].tensor.dtype(), DType::kInt8);
}

// What ONNX allows stays allowed: int32 data dequantized without a zero point.
TEST(QuantParams, Int32DequantizeStillRuns) {
  auto out = run_node("DequantizeLinear",
                      {Tensor::from_vector<int32_t>({-4, 6}, {2}), Tensor::scalar<float>(0.5f)}, {},
                      1, 13);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor.data<float>()[1], 3.0f);
}

}  // namespace
}  // namespace ig

// value:V inputs: the value in the model's dtype, as a scalar or filling the input's shape; text
// that does not parse or does not fit the dtype is an error naming the input and the problem.
#include <gtest/gtest.h>

#include "../support/input_spec.h"

#include <cmath>
#include <limits>

#include "inputs/inputs.h"

namespace ig {
namespace {

InputTarget literal_target(DType dtype, std::vector<int64_t> dims, bool has_shape = true) {
  InputTarget t;
  t.name = "sr";
  t.dtype = dtype;
  t.has_shape = has_shape;
  for (int64_t d : dims) t.dims.push_back(Dim{d, d < 0 ? "N" : ""});
  t.model_label = "vad.onnx";
  return t;
}

std::string error_of(const Expected<NamedInput>& in) {
  return in.ok() ? "ok" : in.status().message();
}

TEST(LiteralInput, ScalarInTheModelsDtypeAndItsRecipeRecreatesIt) {
  const auto t = literal_target(DType::kInt64, {});
  auto in = testing::input_from_spec("value:16000", t);
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  EXPECT_TRUE(in->tensor.bitwise_equal(Tensor::scalar<int64_t>(16000)));
  EXPECT_EQ(in->source, "value:16000,shape=,dtype=int64");
  auto again = testing::input_from_spec(in->source, t);
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_TRUE(again->tensor.bitwise_equal(in->tensor));
  // No declared shape at all: a scalar.
  auto bare = testing::input_from_spec("value:3", literal_target(DType::kInt32, {}, false));
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->tensor.rank(), 0);
}

TEST(LiteralInput, FillsTheDeclaredShapeWithOpenDimsAtOneAndSaysSo) {
  auto in = testing::input_from_spec("value:0.1", literal_target(DType::kFloat32, {-1, 2}));
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  EXPECT_TRUE(in->tensor.bitwise_equal(Tensor::from_vector<float>({0.1f, 0.1f}, {1, 2})));
  ASSERT_EQ(in->defaulted.size(), 1u);
  EXPECT_EQ(in->defaulted[0].symbol, "N");
  auto shaped =
      testing::input_from_spec("value:-2,shape=3x2", literal_target(DType::kInt8, {-1, 2}));
  ASSERT_TRUE(shaped.ok()) << shaped.status().to_string();
  EXPECT_TRUE(
      shaped->tensor.bitwise_equal(Tensor::from_vector<int8_t>({-2, -2, -2, -2, -2, -2}, {3, 2})));
  EXPECT_TRUE(shaped->defaulted.empty());
}

TEST(LiteralInput, RoundsOnceToTheDtypeAndTakesExceptionalValues) {
  // 1 + 2^-11 + 2^-30 rounds up to 1 + 2^-10 in fp16 directly; via fp32 it would tie to 1.
  auto h =
      testing::input_from_spec("value:1.0004882821813225746", literal_target(DType::kFloat16, {}));
  ASSERT_TRUE(h.ok()) << h.status().to_string();
  EXPECT_EQ(h->tensor.data<Float16>()[0].bits, 0x3c01);
  auto inf = testing::input_from_spec("value:-inf", literal_target(DType::kFloat32, {1}));
  ASSERT_TRUE(inf.ok());
  EXPECT_EQ(inf->tensor.data<float>()[0], -std::numeric_limits<float>::infinity());
  auto nan = testing::input_from_spec("value:nan", literal_target(DType::kFloat64, {1}));
  ASSERT_TRUE(nan.ok());
  EXPECT_TRUE(std::isnan(nan->tensor.data<double>()[0]));
  auto b = testing::input_from_spec("value:true", literal_target(DType::kBool, {2}));
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->tensor.data<bool>()[1]);
  auto big =
      testing::input_from_spec("value:18446744073709551615", literal_target(DType::kUInt64, {}));
  ASSERT_TRUE(big.ok()) << big.status().to_string();
  EXPECT_EQ(big->tensor.data<uint64_t>()[0], std::numeric_limits<uint64_t>::max());
  auto s = testing::input_from_spec("value:hello", literal_target(DType::kString, {2}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->tensor.strings()[1], "hello");
}

TEST(LiteralInput, TextThatDoesNotParseOrFitIsAnErrorNamingTheInput) {
  EXPECT_EQ(error_of(testing::input_from_spec("value:abc", literal_target(DType::kInt64, {}))),
            "vad.onnx: input 'sr': value:abc is not an integer, which int64 needs");
  EXPECT_EQ(error_of(testing::input_from_spec("value:16000.5", literal_target(DType::kInt64, {}))),
            "vad.onnx: input 'sr': value:16000.5 is not an integer, which int64 needs");
  EXPECT_EQ(error_of(testing::input_from_spec("value:9223372036854775808",
                                              literal_target(DType::kInt64, {}))),
            "vad.onnx: input 'sr': value:9223372036854775808 overflows int64 "
            "(-9223372036854775808..9223372036854775807)");
  EXPECT_EQ(error_of(testing::input_from_spec("value:300", literal_target(DType::kUInt8, {}))),
            "vad.onnx: input 'sr': value:300 overflows uint8 (0..255)");
  EXPECT_EQ(error_of(testing::input_from_spec("value:-1", literal_target(DType::kUInt16, {}))),
            "vad.onnx: input 'sr': value:-1 overflows uint16 (0..65535)");
  EXPECT_EQ(error_of(testing::input_from_spec("value:-129", literal_target(DType::kInt8, {}))),
            "vad.onnx: input 'sr': value:-129 overflows int8 (-128..127)");
  EXPECT_EQ(error_of(testing::input_from_spec("value:1e39", literal_target(DType::kFloat32, {}))),
            "vad.onnx: input 'sr': value:1e39 overflows float (it would become infinite)");
  EXPECT_EQ(error_of(testing::input_from_spec("value:70000", literal_target(DType::kFloat16, {}))),
            "vad.onnx: input 'sr': value:70000 overflows float16 (it would become infinite)");
  EXPECT_EQ(error_of(testing::input_from_spec("value:1e999", literal_target(DType::kFloat64, {}))),
            "vad.onnx: input 'sr': value:1e999 is out of the range of a double");
  EXPECT_EQ(error_of(testing::input_from_spec("value:0x10", literal_target(DType::kFloat32, {}))),
            "vad.onnx: input 'sr': value:0x10 is not a number");
  EXPECT_EQ(error_of(testing::input_from_spec("value:yes", literal_target(DType::kBool, {}))),
            "vad.onnx: input 'sr': value:yes is not a bool (true, false, 1 or 0)");
  EXPECT_EQ(error_of(testing::input_from_spec("value:1,lo=2", literal_target(DType::kFloat32, {}))),
            "vad.onnx: input 'sr': value: takes no option 'lo' (options: dtype, seed, shape, "
            "inject, mask)");
  EXPECT_EQ(
      error_of(testing::input_from_spec("value:1,shape=2x2", literal_target(DType::kFloat32, {3}))),
      "vad.onnx: input 'sr': shape=2x2 has 2 dims but the model declares 1 (sr: float[3])");
}

}  // namespace
}  // namespace ig

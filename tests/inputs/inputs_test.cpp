#include "inputs/inputs.h"

#include <gtest/gtest.h>

#include "../support/input_spec.h"

#include <cfloat>
#include <cmath>
#include <fstream>

#include "../support/onnx_builder.h"
#include "inputs/random_input.h"
#include "model/npy.h"
#include "model/onnx_model.h"
#include "synth/demo_images.h"

namespace ig {
namespace {

using testing::TempDir;

InputTarget target(DType dtype, std::vector<int64_t> dims, const std::string& name = "x") {
  InputTarget t;
  t.name = name;
  t.dtype = dtype;
  t.has_shape = true;
  for (int64_t d : dims) t.dims.push_back(Dim{d, d < 0 ? "N" : ""});
  t.model_label = "test.onnx";
  return t;
}

// The recipe recreates the tensor bit for bit.
void expect_recipe_recreates(const NamedInput& in, const InputTarget& t) {
  auto again = testing::input_from_spec(in.source, t, 999);
  ASSERT_TRUE(again.ok()) << in.source << ": " << again.status().to_string();
  EXPECT_TRUE(again->tensor.bitwise_equal(in.tensor)) << in.source;
  EXPECT_EQ(again->hash, in.hash);
  EXPECT_EQ(again->source, in.source);
}

TEST(Inputs, UniformDefaultIsThePapersGeneratorAndRecipeRecreatesIt) {
  const auto t = target(DType::kFloat32, {-1, 3, 4, 4});
  auto in = testing::input_from_spec("random:uniform,seed=3", t);
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  EXPECT_TRUE(in->tensor.bitwise_equal(
      random_uniform_tensor(DType::kFloat32, {1, 3, 4, 4}, derive_seed(3, "x"))));
  EXPECT_EQ(in->source, "random:uniform,lo=0,hi=1,seed=3,shape=1x3x4x4,dtype=float");
  expect_recipe_recreates(*in, t);
  auto other = testing::input_from_spec("random:uniform,seed=4", t);
  EXPECT_NE(other->hash, in->hash);
}

TEST(Inputs, NormalAndRangedUniformHaveTheirMoments) {
  const auto t = target(DType::kFloat64, {1, 20000});
  auto n = testing::input_from_spec("random:normal,mean=2,std=0.5,seed=1", t);
  ASSERT_TRUE(n.ok()) << n.status().to_string();
  double mean = 0, sq = 0;
  for (double v : n->tensor.values<double>()) mean += v;
  mean /= 20000;
  for (double v : n->tensor.values<double>()) sq += (v - mean) * (v - mean);
  EXPECT_NEAR(mean, 2.0, 0.02);
  EXPECT_NEAR(std::sqrt(sq / 20000), 0.5, 0.02);
  expect_recipe_recreates(*n, t);
  auto u = testing::input_from_spec("random:uniform,lo=-3,hi=-2", t);
  ASSERT_TRUE(u.ok());
  for (double v : u->tensor.values<double>()) ASSERT_TRUE(v >= -3 && v < -2);
  expect_recipe_recreates(*u, t);
}

TEST(Inputs, ModelRangeComesFromMetadata) {
  auto t = target(DType::kFloat32, {1, 1000});
  auto missing = testing::input_from_spec("random:model", t);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("infergap.input.x.range"), std::string::npos);
  t.metadata["infergap.input.x.range"] = "-2.5,4";
  auto in = testing::input_from_spec("random:model,seed=2", t);
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  float lo = 1e9f, hi = -1e9f;
  for (float v : in->tensor.values<float>()) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_GE(lo, -2.5f);
  EXPECT_LT(lo, -2.3f);
  EXPECT_LE(hi, 4.0f);
  EXPECT_GT(hi, 3.8f);
  EXPECT_EQ(in->source.rfind("random:uniform,lo=-2.5,hi=4,seed=2", 0), 0u) << in->source;
}

TEST(Inputs, InjectsExceptionalValuesAtPositionsAndRates) {
  const auto t = target(DType::kFloat32, {1, 1000});
  auto in = testing::input_from_spec(
      "random:uniform,inject=nan@0/1,inject=-inf@2,inject=-zero@3,inject=denormal@4,"
      "inject=huge@5,inject=-huge@6,inject=inf@7",
      t);
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  const float* v = in->tensor.data<float>();
  EXPECT_TRUE(std::isnan(v[0]) && std::isnan(v[1]));
  EXPECT_EQ(v[2], -INFINITY);
  EXPECT_TRUE(v[3] == 0 && std::signbit(v[3]));
  EXPECT_EQ(std::fpclassify(v[4]), FP_SUBNORMAL);
  EXPECT_EQ(v[5], FLT_MAX);
  EXPECT_EQ(v[6], -FLT_MAX);
  EXPECT_EQ(v[7], INFINITY);
  expect_recipe_recreates(*in, t);

  auto rate = testing::input_from_spec("random:normal,seed=9,inject=nan@2%", t);
  ASSERT_TRUE(rate.ok());
  int nans = 0;
  for (float x : rate->tensor.values<float>()) nans += std::isnan(x);
  EXPECT_EQ(nans, 20);
  expect_recipe_recreates(*rate, t);

  auto half = testing::input_from_spec("random:uniform,inject=huge@0,inject=denormal@1",
                                       target(DType::kFloat16, {1, 4}));
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(static_cast<float>(half->tensor.data<Float16>()[0]), 65504.0f);
  EXPECT_EQ(static_cast<float>(half->tensor.data<Float16>()[1]), std::ldexp(1.0f, -15));
}

TEST(Inputs, BadSpecsNameTheProblem) {
  const auto t = target(DType::kFloat32, {1, 4});
  auto err = [&](const std::string& spec) {
    auto in = testing::input_from_spec(spec, t);
    return in.ok() ? std::string("ok") : in.status().message();
  };
  EXPECT_NE(err("random:cauchy").find("unknown distribution"), std::string::npos);
  EXPECT_NE(err("random:uniform,mean=1").find("no option 'mean'"), std::string::npos);
  EXPECT_NE(err("random:uniform,inject=nan@9").find("outside the 4 elements"), std::string::npos);
  EXPECT_NE(err("random:uniform,inject=fire@0.1").find("KIND@RATE"), std::string::npos);
  EXPECT_NE(err("random:uniform,lo=2,hi=1").find("lo < hi"), std::string::npos);
  EXPECT_NE(err("random:uniform,dtype=double").find("declares float"), std::string::npos);
  EXPECT_NE(err("random:uniform,seed=-1").find("seed"), std::string::npos);
  EXPECT_NE(err("missing.npy").find("missing.npy"), std::string::npos);
  EXPECT_NE(err("random:uniform,inject=nan@9").find("test.onnx: input 'x'"), std::string::npos);
  auto ints =
      testing::input_from_spec("random:uniform,inject=nan@0", target(DType::kInt64, {1, 4}));
  ASSERT_FALSE(ints.ok());
  EXPECT_NE(ints.status().message().find("floats only"), std::string::npos);
}

TEST(Inputs, FilesKeepTheirValuesAndCanTakeInjections) {
  TempDir dir;
  const Tensor t = Tensor::from_vector<float>({1, 2, 3, 4}, {1, 4});
  ASSERT_TRUE(write_npy(t, dir.file("a.npy")).ok());
  auto in = testing::input_from_spec(dir.file("a.npy"), target(DType::kFloat32, {1, 4}));
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  EXPECT_TRUE(in->tensor.bitwise_equal(t));
  EXPECT_EQ(in->source, "file:" + dir.file("a.npy"));
  auto injected = testing::input_from_spec("file:" + dir.file("a.npy") + ",inject=nan@1",
                                           target(DType::kFloat32, {1, 4}));
  ASSERT_TRUE(injected.ok());
  EXPECT_TRUE(std::isnan(injected->tensor.data<float>()[1]));
  EXPECT_EQ(t.data<float>()[1], 2.0f);  // the file's tensor is not modified in place
}

TEST(Inputs, SetHashDependsOnContentNotOrder) {
  NamedInput a{"a", "", Tensor(), "01", {}, {}}, b{"b", "", Tensor(), "02", {}, {}},
      b2{"b", "", Tensor(), "03", {}, {}};
  EXPECT_EQ(input_set_hash({a, b}), input_set_hash({b, a}));
  EXPECT_NE(input_set_hash({a, b}), input_set_hash({a, b2}));
}

TEST(Inputs, GatherInputsFillsMissingInputsAndRejectsUnknownNames) {
  TempDir dir;
  auto proto = testing::relu_model();
  ASSERT_TRUE(save_model_proto(proto, dir.file("m.onnx")).ok());
  auto model = load_model(dir.file("m.onnx"));
  ASSERT_TRUE(model.ok());
  auto in = gather_inputs(*model, {}, 7);
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->size(), 1u);
  EXPECT_EQ((*in)[0].source, "random:uniform,lo=0,hi=1,seed=7,shape=2,dtype=float");
  auto bad = gather_inputs(*model, {"Y=random:normal"}, 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no input 'Y' (inputs: X)"), std::string::npos);
  auto twice = gather_inputs(*model, {"X=random:normal", "X=random:uniform"}, 0);
  ASSERT_FALSE(twice.ok());
}

}  // namespace
}  // namespace ig

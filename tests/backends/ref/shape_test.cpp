#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../../support/run_node.h"

namespace ig::shape_ops {
namespace {

using testing::attr_float;
using testing::attr_int;
using testing::attr_ints;
using testing::attr_string;
using testing::run_node;

Tensor ints(std::vector<int64_t> v) {
  const auto n = static_cast<int64_t>(v.size());
  return Tensor::from_vector<int64_t>(v, {n});
}
Tensor iota(Shape shape) {
  Tensor t(DType::kFloat32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}
std::vector<float> floats(const Tensor& t) {
  return {t.data<float>(), t.data<float>() + t.numel()};
}
std::vector<int64_t> int64s(const Tensor& t) {
  return {t.data<int64_t>(), t.data<int64_t>() + t.numel()};
}
const Tensor& only(const Expected<std::vector<Value>>& out) {
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return (*out)[0].tensor;
}
void expect_fail_naming_node(const Expected<std::vector<Value>>& out, const std::string& text) {
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("'n0'"), std::string::npos) << out.status().message();
  EXPECT_NE(out.status().message().find(text), std::string::npos) << out.status().message();
}

TEST(Shape, ReshapeZeroCopiesAndMinusOneInfers) {
  auto out = run_node("Reshape", {iota({2, 3, 4}), ints({0, -1})});
  EXPECT_EQ(only(out).shape(), (Shape{2, 12}));
}

TEST(Shape, ReshapeAllowZeroKeepsZero) {
  auto out = run_node("Reshape", {iota({0, 3}), ints({3, 0})}, {{"allowzero", attr_int(1)}});
  EXPECT_EQ(only(out).shape(), (Shape{3, 0}));
  expect_fail_naming_node(run_node("Reshape", {iota({2, 3}), ints({-1, -1})}), "more than one");
}

TEST(Shape, SliceNegativeStepClampsEnds) {
  auto out = run_node("Slice", {iota({5}), ints({10}), ints({-100}), ints({0}), ints({-2})});
  EXPECT_EQ(floats(only(out)), (std::vector<float>{4, 2, 0}));
}

TEST(Shape, SliceOpset1UsesAttributes) {
  auto out = run_node(
      "Slice", {iota({3, 4})},
      {{"starts", attr_ints({1})}, {"ends", attr_ints({1000})}, {"axes", attr_ints({-1})}}, 1, 9);
  EXPECT_EQ(only(out).shape(), (Shape{3, 3}));
  EXPECT_EQ(floats(only(out))[0], 1.0f);
}

TEST(Shape, SqueezeAxesAttributeBefore13InputAfter) {
  auto a = run_node("Squeeze", {iota({1, 3, 1})}, {{"axes", attr_ints({-1})}}, 1, 11);
  EXPECT_EQ(only(a).shape(), (Shape{1, 3}));
  auto b = run_node("Squeeze", {iota({1, 3, 1}), ints({0})}, {}, 1, 13);
  EXPECT_EQ(only(b).shape(), (Shape{3, 1}));
  expect_fail_naming_node(run_node("Squeeze", {iota({2, 3}), ints({0})}), "cannot squeeze");
}

TEST(Shape, UnsqueezeNegativeAxes) {
  auto out = run_node("Unsqueeze", {iota({3}), ints({-1, 0})});
  EXPECT_EQ(only(out).shape(), (Shape{1, 3, 1}));
}

TEST(Shape, PadModesAndNegativePads) {
  auto r = run_node("Pad", {iota({4}), ints({2, 2})}, {{"mode", attr_string("reflect")}});
  EXPECT_EQ(floats(only(r)), (std::vector<float>{2, 1, 0, 1, 2, 3, 2, 1}));
  auto e = run_node("Pad", {iota({3}), ints({1, -1})}, {{"mode", attr_string("edge")}});
  EXPECT_EQ(floats(only(e)), (std::vector<float>{0, 0, 1}));
  auto c = run_node("Pad", {iota({2})}, {{"pads", attr_ints({1, 0})}, {"value", attr_float(7.5f)}},
                    1, 2);
  EXPECT_EQ(floats(only(c)), (std::vector<float>{7.5f, 0, 1}));
}

TEST(Shape, GatherNegativeAndOutOfRangeIndices) {
  auto out = run_node("Gather", {iota({3, 2}), ints({-1, 0})});
  EXPECT_EQ(floats(only(out)), (std::vector<float>{4, 5, 0, 1}));
  expect_fail_naming_node(run_node("Gather", {iota({3, 2}), ints({3})}), "out of range");
}

TEST(Shape, SplitInputAt13AttributeBefore) {
  auto a = run_node("Split", {iota({5}), ints({2, 3})}, {}, 2, 13);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_EQ(floats((*a)[1].tensor), (std::vector<float>{2, 3, 4}));
  auto b = run_node("Split", {iota({5})}, {{"split", attr_ints({4, 1})}}, 2, 11);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(floats((*b)[1].tensor), (std::vector<float>{4}));
}

TEST(Shape, ScatterElementsAddAccumulatesDuplicates) {
  auto out = run_node("ScatterElements",
                      {iota({3}), ints({1, 1}), Tensor::from_vector<float>({10, 20}, {2})},
                      {{"reduction", attr_string("add")}}, 1, 16);
  EXPECT_EQ(floats(only(out)), (std::vector<float>{0, 31, 2}));
}

TEST(Shape, ConcatStrings) {
  auto out =
      run_node("Concat", {Tensor::from_strings({"a"}, {1}), Tensor::from_strings({"b", "c"}, {2})},
               {{"axis", attr_int(0)}});
  EXPECT_EQ(only(out).strings(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Shape, TransposeAndTile) {
  auto t = run_node("Transpose", {iota({2, 3})});
  EXPECT_EQ(floats(only(t)), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  auto r = run_node("Tile", {iota({2}), ints({3})});
  EXPECT_EQ(floats(only(r)), (std::vector<float>{0, 1, 0, 1, 0, 1}));
}

TEST(Shape, UniqueUnsortedOutputs) {
  auto out = run_node("Unique", {Tensor::from_vector<float>({2, 1, 1, 3, 4, 3}, {6})},
                      {{"sorted", attr_int(0)}}, 4);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(floats((*out)[0].tensor), (std::vector<float>{2, 1, 3, 4}));
  EXPECT_EQ(int64s((*out)[1].tensor), (std::vector<int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(int64s((*out)[2].tensor), (std::vector<int64_t>{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(int64s((*out)[3].tensor), (std::vector<int64_t>{1, 2, 2, 1}));
}

TEST(Shape, ResizeLinearAlignCornersUsesUnroundedLength) {
  // 4 -> floor(4 * 0.6) = 2 outputs; align_corners divides by 4 * 0.6 - 1 = 1.4 as the reference.
  auto out =
      run_node("Resize", {iota({1, 4}), Tensor(), Tensor::from_vector<float>({1, 0.6f}, {2})},
               {{"mode", attr_string("linear")},
                {"coordinate_transformation_mode", attr_string("align_corners")}});
  const auto y = floats(only(out));
  ASSERT_EQ(y.size(), 2u);
  EXPECT_FLOAT_EQ(y[0], 0.0f);
  EXPECT_NEAR(y[1], 3.0 / 1.4, 1e-6);
}

TEST(Shape, ResizeNearestModes) {
  auto sizes = ints({1, 6});
  auto out = run_node("Resize", {iota({1, 3}), Tensor(), Tensor(), sizes},
                      {{"coordinate_transformation_mode", attr_string("asymmetric")},
                       {"nearest_mode", attr_string("ceil")}});
  EXPECT_EQ(floats(only(out)), (std::vector<float>{0, 1, 1, 2, 2, 2}));
}

TEST(Shape, ConstantOfShapeAndRange) {
  auto c = run_node("ConstantOfShape", {ints({2, 2})});
  EXPECT_EQ(floats(only(c)), (std::vector<float>{0, 0, 0, 0}));
  auto r = run_node("Range", {Tensor::scalar<int64_t>(10), Tensor::scalar<int64_t>(4),
                              Tensor::scalar<int64_t>(-3)});
  EXPECT_EQ(int64s(only(r)), (std::vector<int64_t>{10, 7}));
}

TEST(Shape, HugeSizesFailCleanly) {
  expect_fail_naming_node(run_node("Tile", {iota({2}), ints({INT64_MAX})}), "overflows");
  auto pad = run_node("Pad", {iota({2}), ints({INT64_MAX / 2, 0})});
  ASSERT_FALSE(pad.ok());
  EXPECT_NE(pad.status().message().find("'n0'"), std::string::npos) << pad.status().message();
  // A zero-size output with a huge other dim must not build huge index tables.
  auto e = run_node("Expand", {iota({0, 1}), ints({0, int64_t{1} << 40})});
  EXPECT_EQ(only(e).numel(), 0);
}

TEST(Shape, UniqueSortsNaNLast) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = run_node("Unique", {Tensor::from_vector<float>({nan, 1, nan, 0}, {4})}, {}, 4);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const auto y = floats((*out)[0].tensor);
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_EQ(int64s((*out)[3].tensor), (std::vector<int64_t>{1, 1, 2}));
}

TEST(Shape, DepthToSpaceCrdDiffersFromDcr) {
  auto dcr = run_node("DepthToSpace", {iota({1, 4, 1, 1})}, {{"blocksize", attr_int(2)}});
  EXPECT_EQ(floats(only(dcr)), (std::vector<float>{0, 1, 2, 3}));
  auto crd = run_node("DepthToSpace", {iota({1, 8, 1, 1})},
                      {{"blocksize", attr_int(2)}, {"mode", attr_string("CRD")}});
  EXPECT_EQ(only(crd).shape(), (Shape{1, 2, 2, 2}));
  EXPECT_EQ(floats(only(crd)), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  auto dcr8 = run_node("DepthToSpace", {iota({1, 8, 1, 1})}, {{"blocksize", attr_int(2)}});
  EXPECT_EQ(floats(only(dcr8)), (std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(Shape, GatherNDBatchDims) {
  // data [2, 2, 2], one index per batch: picks data[b, idx[b]].
  auto out = run_node("GatherND", {iota({2, 2, 2}), Tensor::from_vector<int64_t>({1, 0}, {2, 1})},
                      {{"batch_dims", attr_int(1)}});
  EXPECT_EQ(floats(only(out)), (std::vector<float>{2, 3, 4, 5}));
  expect_fail_naming_node(
      run_node("GatherND", {iota({2, 2}), Tensor::from_vector<int64_t>({0, 2}, {1, 2})}),
      "out of range");
}

TEST(Shape, ScatterNDMultiply) {
  auto out = run_node("ScatterND",
                      {iota({4}), Tensor::from_vector<int64_t>({3, 3}, {2, 1}),
                       Tensor::from_vector<float>({2, 5}, {2})},
                      {{"reduction", attr_string("mul")}}, 1, 16);
  EXPECT_EQ(floats(only(out)), (std::vector<float>{0, 1, 2, 30}));
}

TEST(Shape, TriluOneHotNonZeroCompress) {
  auto lower = run_node("Trilu", {iota({2, 2})}, {{"upper", attr_int(0)}});
  EXPECT_EQ(floats(only(lower)), (std::vector<float>{0, 0, 2, 3}));
  auto oh = run_node("OneHot", {ints({-1, 5}), Tensor::scalar<int64_t>(3),
                                Tensor::from_vector<float>({0, 1}, {2})});
  EXPECT_EQ(floats(only(oh)), (std::vector<float>{0, 0, 1, 0, 0, 0}));  // 5 is out of range
  auto nz = run_node("NonZero", {Tensor::from_vector<float>({0, 1, 0, 2}, {2, 2})});
  EXPECT_EQ(int64s(only(nz)), (std::vector<int64_t>{0, 1, 1, 1}));
  Tensor cond(DType::kBool, {2});
  cond.data<bool>()[1] = true;
  auto c = run_node("Compress", {iota({2, 2}), cond}, {{"axis", attr_int(-1)}});
  EXPECT_EQ(floats(only(c)), (std::vector<float>{1, 3}));
}

TEST(Shape, ResizeCubicExcludeOutsideRenormalises) {
  // Constant input stays constant whatever the weights, as long as they are renormalised.
  Tensor x(DType::kFloat32, {1, 4});
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = 5.0f;
  auto out = run_node("Resize", {x, Tensor(), Tensor::from_vector<float>({1, 1.5f}, {2})},
                      {{"mode", attr_string("cubic")},
                       {"exclude_outside", attr_int(1)},
                       {"cubic_coeff_a", attr_float(-0.5f)}});
  for (float v : floats(only(out))) EXPECT_NEAR(v, 5.0f, 1e-5);
}

TEST(Shape, ResizeLinearOnUint8Truncates) {
  auto x = Tensor::from_vector<uint8_t>({0, 255}, {2});
  auto out = run_node("Resize", {x, Tensor(), Tensor::from_vector<float>({2}, {1})},
                      {{"mode", attr_string("linear")}});
  const Tensor& y = only(out);
  ASSERT_EQ(y.numel(), 4);
  // half_pixel: x_ori = -0.25, 0.25, 0.75, 1.25 -> 0, 63.75, 191.25, 255.
  EXPECT_EQ(y.data<uint8_t>()[1], 63);
  EXPECT_EQ(y.data<uint8_t>()[2], 191);
}

TEST(Shape, TileOpset1TilesOneAxis) {
  auto out = run_node(
      "Tile", {iota({1, 2}), Tensor::scalar<int64_t>(2), Tensor::scalar<int64_t>(0)}, {}, 1, 5);
  EXPECT_EQ(only(out).shape(), (Shape{2, 2}));
  EXPECT_EQ(floats(only(out)), (std::vector<float>{0, 1, 0, 1}));
}

TEST(Shape, ResizeOpset18KeepAspectRatio) {
  auto out = run_node(
      "Resize", {iota({1, 1, 2, 4}), Tensor(), Tensor(), ints({4, 4})},
      {{"axes", attr_ints({2, 3})}, {"keep_aspect_ratio_policy", attr_string("not_larger")}}, 1,
      18);
  EXPECT_EQ(only(out).shape(), (Shape{1, 1, 2, 4}));  // scale min(2, 1) = 1
}

TEST(Shape, ReverseSequenceBatchMajor) {
  auto out = run_node("ReverseSequence", {iota({2, 3}), ints({2, 3})},
                      {{"time_axis", attr_int(1)}, {"batch_axis", attr_int(0)}});
  EXPECT_EQ(floats(only(out)), (std::vector<float>{1, 0, 2, 5, 4, 3}));
}

}  // namespace
}  // namespace ig::shape_ops

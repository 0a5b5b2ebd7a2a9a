// OpenCV 4.6 parses Clip's bounds and Squeeze/Unsqueeze's axes only as attributes (their forms
// before opsets 11 and 13); torch exports them as Constant inputs. The backend rewrites constant
// inputs into those attributes (onnx_rewrite.cpp): MobileNetV2 (ReLU6) and torch's LSTM export
// (Squeeze of the state) were refused before.
#include <algorithm>

#include "backend_test_util.h"

namespace ig::testing {
namespace {

// X [2,8] -> Unsqueeze(0) -> Clip(lo from a Constant, hi from an initializer)
// -> Squeeze(0) -> Y [2,8]; and Clip with only a max (min omitted) on a second output.
onnx::ModelProto clip_and_squeeze() {
  GraphBuilder b;
  b.io(true, "X", {2, 8});
  b.io(false, "Y", {2, 8});
  b.io(false, "Z", {2, 8});
  b.constant("axes0", Tensor::from_vector<int64_t>({0}, {1}));
  b.node("Unsqueeze", "unsqueeze", {"X", "axes0"}, {"u"});
  b.constant("lo", Tensor::scalar<float>(-0.25f));
  tensor_to_proto(Tensor::scalar<float>(0.5f), "hi", b.g->add_initializer());
  b.node("Clip", "clip", {"u", "lo", "hi"}, {"c"});
  b.constant("axes1", Tensor::from_vector<int64_t>({0}, {1}));
  b.node("Squeeze", "squeeze", {"c", "axes1"}, {"Y"});
  b.node("Clip", "clip_max", {"X", "", "hi"}, {"Z"});
  return b.model;
}

TEST(OpencvRewrite, ConstantInputsBecomeTheAttributesOpenCvReads) {
  TempDir dir;
  auto model = load_model(save(clip_and_squeeze(), dir.path.string(), "clip.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  Tensor x = random_uniform_tensor(DType::kFloat32, {2, 8}, 9);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = x.data<float>()[i] * 2 - 1;
  const std::map<std::string, Tensor> feeds = {{"X", x}};
  const Outcome ref = run_platform("ref", *model, feeds);
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  const Outcome cv = run_platform("opencv", *model, feeds);
  ASSERT_TRUE(cv.status.ok()) << cv.status.to_string();
  ASSERT_EQ(cv.outputs.size(), 2u);
  // Clipping is exact: the same bits as the reference, and every bound bites.
  for (size_t k = 0; k < 2; ++k) {
    ASSERT_EQ(cv.outputs[k].tensor.shape(), (Shape{2, 8})) << k;
    EXPECT_EQ(hex_hash(cv.outputs[k].tensor), hex_hash(ref.outputs[k].tensor)) << k;
  }
  const float* y = cv.outputs[0].tensor.data<float>();
  const float* z = cv.outputs[1].tensor.data<float>();
  EXPECT_EQ(*std::min_element(y, y + 16), -0.25f);
  EXPECT_EQ(*std::max_element(y, y + 16), 0.5f);
  EXPECT_EQ(*std::max_element(z, z + 16), 0.5f);
  EXPECT_LT(*std::min_element(z, z + 16), -0.25f);  // no min: values below stay
}

// A bound computed at run time stays an input: OpenCV still refuses it, naming the node.
TEST(OpencvRewrite, ComputedBoundsAreLeftAlone) {
  TempDir dir;
  GraphBuilder b;
  b.io(true, "X", {2, 8});
  b.io(false, "Y", {2, 8});
  b.node("ReduceMax", "bound", {"X"}, {"m"});
  b.node("Clip", "clip", {"X", "", "m"}, {"Y"});
  auto model = load_model(save(b.model, dir.path.string(), "computed.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Outcome cv =
      run_platform("opencv", *model, {{"X", random_uniform_tensor(DType::kFloat32, {2, 8}, 9)}});
  ASSERT_EQ(cv.status.code(), StatusCode::kUnsupported) << cv.status.to_string();
  EXPECT_EQ(cv.status.node(), 1) << cv.status.message();
}

}  // namespace
}  // namespace ig::testing

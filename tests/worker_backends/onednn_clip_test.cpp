// ReLU6 as torch exports it (MobileNetV2, MnasNet, ...): Clip whose min and max come from Constant
// nodes, not initializers. The oneDNN backend refused every such Clip ("computed min/max"), so
// MobileNetV2 could not run on it at all.
#include <algorithm>

#include "backend_test_util.h"

namespace ig::testing {
namespace {

// X -> Conv -> Clip(., lo, hi) -> Y, the bounds from Constant nodes placed between the two, as
// torch places them.
onnx::ModelProto conv_relu6(float lo, float hi) {
  GraphBuilder b;
  b.io(true, "X", {1, 4, 6, 6});
  b.io(false, "Y", {1, 8, 6, 6});
  auto* conv = b.node("Conv", "conv",
                      {"X", b.weight("w", {8, 4, 3, 3}, 0.6f), b.weight("b", {8}, 0.2f)}, {"c"});
  GraphBuilder::ints(conv, "pads", {1, 1, 1, 1});
  b.constant("lo", Tensor::scalar<float>(lo));
  b.constant("hi", Tensor::scalar<float>(hi));
  b.node("Clip", "clip", {"c", "lo", "hi"}, {"Y"});
  return b.model;
}

TEST(OnednnClip, BoundsFromConstantNodesAreMappedAndFused) {
  TempDir dir;
  auto model = load_model(save(conv_relu6(-0.25f, 0.5f), dir.path.string(), "relu6.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 4, 6, 6}, 5)}};
  const Outcome ref = run_platform("ref", *model, feeds);
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  for (const std::string spec : {"onednn", "onednn:fuse=off"}) {
    const Outcome o = run_platform(spec, *model, feeds);
    ASSERT_TRUE(o.status.ok()) << spec << ": " << o.status.to_string();
    const Tensor& y = o.outputs[0].tensor;
    EXPECT_LT(max_rel_error(y, ref.outputs[0].tensor), 1e-4) << spec;
    // Both bounds bite: the data reaches past each, so a default bound would show.
    const float* p = y.data<float>();
    EXPECT_EQ(*std::max_element(p, p + y.numel()), 0.5f) << spec;
    EXPECT_EQ(*std::min_element(p, p + y.numel()), -0.25f) << spec;
    std::map<std::string, std::string> covers;
    for (const auto& [node, r] : o.reports) covers[node] = r.covers;
    if (spec == "onednn") {
      EXPECT_EQ(covers["clip"], "conv,clip");
    }
  }
}

}  // namespace
}  // namespace ig::testing

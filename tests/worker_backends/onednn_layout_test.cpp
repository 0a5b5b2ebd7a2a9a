// Layouts between the oneDNN backend's primitives: a fused residual Add must not pin its
// convolution to plain layouts (where oneDNN has only its slow gemm:jit kernel).
#include "backend_test_util.h"

namespace ig::testing {
namespace {

TEST(OnednnLayout, ResidualConvolutionKeepsABlockedKernel) {
  TempDir dir;
  // 32 channels: oneDNN's direct kernels pick blocked layouts for the convolutions.
  auto model = load_model(save(small_convnet(3, 32, 16), dir.path.string(), "convnet.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 7)}};
  const Outcome ref = run_platform("ref", *model, feeds);
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  const Outcome o = run_platform("onednn", *model, feeds);
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  std::map<std::string, NodeReport> report;
  for (const auto& [node, r] : o.reports) report[node] = r;
  ASSERT_EQ(report["relu2"].covers, "conv2,add1,relu2");
  EXPECT_EQ(report["relu2"].note.find("gemm"), std::string::npos) << report["relu2"].note;
  // The residual operand, reordered into the convolution's layout, still adds element by element.
  EXPECT_LT(max_rel_error(o.trace.at("r2"), ref.trace.at("r2")), 1e-3);
  EXPECT_LT(max_rel_error(o.outputs[0].tensor, ref.outputs[0].tensor), 1e-3);
}

}  // namespace
}  // namespace ig::testing

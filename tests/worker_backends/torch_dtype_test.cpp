// The `torch` platform on float16 and bfloat16 models: libtorch 1.13's CPU kernels lack float16
// for conv and most other calls, so those nodes are refused up front with the reason (verdict
// unsupported, not error) and fallback=ref runs them on the reference kernels.
#include "backend_test_util.h"
#include "tensor/convert.h"

namespace ig::testing {
namespace {

// The model with its float initializers and float graph inputs and outputs in `dt`.
void retype(onnx::ModelProto& m, DType dt) {
  auto* g = m.mutable_graph();
  for (auto& init : *g->mutable_initializer()) {
    auto t = tensor_from_proto(init);
    ASSERT_TRUE(t.ok());
    const std::string name = init.name();
    init.Clear();
    tensor_to_proto(convert_float_tensor(*t, dt), name, &init);
  }
  for (auto* list : {g->mutable_input(), g->mutable_output()}) {
    for (auto& vi : *list) vi.mutable_type()->mutable_tensor_type()->set_elem_type(int(dt));
  }
}

// Conv (no float16 kernel in libtorch 1.13) then GlobalAveragePool (adaptive_avg_pool2d, which
// has one), in `dt`.
Model conv_gap(const TempDir& dir, DType dt, const std::string& extra_op = "") {
  GraphBuilder b;
  b.io(true, "X", {1, 8, 8, 8});
  b.io(false, "Y", {1, 8, 1, 1});
  auto* c = b.node("Conv", "conv", {"X", b.weight("w", {8, 8, 3, 3}, 0.2f)}, {"c"});
  GraphBuilder::ints(c, "pads", {1, 1, 1, 1});
  std::string last = "c";
  if (!extra_op.empty()) {
    // A per-channel PRelu: at::prelu, whose missing float16 kernel only the run finds.
    b.node(extra_op, "extra", {"c", b.weight("slope", {8, 1, 1}, 0.5f)}, {"e"});
    last = "e";
  }
  b.node("GlobalAveragePool", "gap", {last}, {"Y"});
  retype(b.model, dt);
  auto m = load_model(save(b.model, dir.path.string(), "conv_gap.onnx"));
  EXPECT_TRUE(m.ok()) << m.status().to_string();
  return m.ok() ? std::move(*m) : Model{};
}

std::map<std::string, Tensor> feeds_in(DType dt) {
  return {{"X", convert_float_tensor(random_uniform_tensor(DType::kFloat32, {1, 8, 8, 8}, 5), dt)}};
}

// max |a - b| / max |b| over the elements, in fp64.
double rel_error(const Tensor& a, const Tensor& b) {
  const Tensor x = convert_float_tensor(a, DType::kFloat64);
  const Tensor y = convert_float_tensor(b, DType::kFloat64);
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    diff = std::max(diff, std::abs(x.data<double>()[i] - y.data<double>()[i]));
    scale = std::max(scale, std::abs(y.data<double>()[i]));
  }
  return diff / scale;
}

TEST(TorchDtype, Float16ConvIsRefusedWithTheReason) {
  REQUIRE_TORCH();
  TempDir dir;
  const Model model = conv_gap(dir, DType::kFloat16);
  auto backend = make_backend(*parse_platform_spec("torch"));
  ASSERT_TRUE(backend.ok());
  const Status conv = (*backend)->supports(model.graph.nodes[0], model);
  if (conv.ok()) GTEST_SKIP() << "this libtorch has a float16 CPU convolution";
  EXPECT_EQ(conv.code(), StatusCode::kUnsupported);
  EXPECT_NE(conv.message().find("Conv 'conv': libtorch"), std::string::npos) << conv.message();
  EXPECT_NE(conv.message().find("CPU kernel has no float16"), std::string::npos) << conv.message();
  EXPECT_TRUE((*backend)->supports(model.graph.nodes[1], model).ok());

  Outcome o = run_platform("torch", model, feeds_in(DType::kFloat16));
  EXPECT_EQ(o.status.code(), StatusCode::kUnsupported) << o.status.to_string();
}

// Conv runs on the reference kernels, GlobalAveragePool on ATen, which sums in float16 (measured:
// within 2 float16 ulps of a once-rounded mean on ResNet-18), hence the bound of 4 ulps, 2^-8.
TEST(TorchDtype, Float16FallbackRunsAndMatchesTheReference) {
  REQUIRE_TORCH();
  TempDir dir;
  const Model model = conv_gap(dir, DType::kFloat16);
  const auto feeds = feeds_in(DType::kFloat16);
  Outcome ref = run_platform("ref", model, feeds);
  Outcome o = run_platform("torch:fallback=ref", model, feeds);
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  EXPECT_EQ(o.outputs[0].tensor.dtype(), DType::kFloat16);
  EXPECT_TRUE(o.trace.at("c").bitwise_equal(ref.trace.at("c")));
  EXPECT_LE(rel_error(o.outputs[0].tensor, ref.outputs[0].tensor), 1.0 / 256);
  std::map<std::string, std::string> note;
  for (const auto& [node, r] : o.reports) note[node] = r.note;
  EXPECT_NE(note["conv"].find("fallback=ref: Conv 'conv'"), std::string::npos) << note["conv"];
  EXPECT_EQ(note["gap"], "aten::adaptive_avg_pool2d");
}

// A kernel the up-front table leaves to the run (at::prelu's path depends on the slope's shape):
// ATen's "not implemented for 'Half'" becomes the same refusal, and fallback=ref takes the node.
TEST(TorchDtype, MissingKernelFoundAtRunTimeIsUnsupported) {
  REQUIRE_TORCH();
  TempDir dir;
  const Model model = conv_gap(dir, DType::kFloat16, "PRelu");
  const auto feeds = feeds_in(DType::kFloat16);
  Outcome o = run_platform("torch", model, feeds);
  ASSERT_FALSE(o.status.ok());
  EXPECT_EQ(o.status.code(), StatusCode::kUnsupported) << o.status.to_string();

  Outcome fallback = run_platform("torch:fallback=ref", model, feeds);
  ASSERT_TRUE(fallback.status.ok()) << fallback.status.to_string();
  std::map<std::string, std::string> note;
  for (const auto& [node, r] : fallback.reports) note[node] = r.note;
  EXPECT_NE(note["extra"].find("CPU kernel has no float16 (ATen: "), std::string::npos)
      << note["extra"];
}

// libtorch 1.13 has bfloat16 CPU kernels for conv and pooling: the model runs on ATen whole.
TEST(TorchDtype, Bfloat16ConvRunsOnAten) {
  REQUIRE_TORCH();
  TempDir dir;
  const Model model = conv_gap(dir, DType::kBFloat16);
  const auto feeds = feeds_in(DType::kBFloat16);
  Outcome o = run_platform("torch", model, feeds);
  Outcome ref = run_platform("ref", model, feeds);
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  EXPECT_EQ(o.outputs[0].tensor.dtype(), DType::kBFloat16);
  // bfloat16 has 7 mantissa bits: a few ulps of 2^-8 apart.
  EXPECT_LE(rel_error(o.outputs[0].tensor, ref.outputs[0].tensor), 4.0 / 256);
}

}  // namespace
}  // namespace ig::testing

// Layouts between the oneDNN backend's primitives: a fused residual Add must not pin its
// convolution to plain layouts (where oneDNN has only its slow gemm:jit kernel), and
// normalization follows the convolution's layout unless layout=plain.
#include <cstdio>

#include "backend_test_util.h"
#include "model/tensor_proto.h"
#include "tensor/convert.h"

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

// Conv -> Relu (r1) -> Conv + r1 -> Relu (r2) -> Conv: a residual block whose result only a
// convolution reads.
onnx::ModelProto residual_into_conv() {
  GraphBuilder b;
  b.io(true, "X", {1, 3, 16, 16});
  b.io(false, "Y", {1, 32, 16, 16});
  auto conv = [&](const char* name, const std::string& in, const char* w, int64_t cin,
                  const char* out) {
    auto* n = b.node("Conv", name, {in, b.weight(w, {32, cin, 3, 3}, 0.2f)}, {out});
    GraphBuilder::ints(n, "pads", {1, 1, 1, 1});
  };
  conv("conv1", "X", "w1", 3, "c1");
  b.node("Relu", "relu1", {"c1"}, {"r1"});
  conv("conv2", "r1", "w2", 32, "c2");
  b.node("Add", "add", {"c2", "r1"}, {"a"});
  b.node("Relu", "relu2", {"a"}, {"r2"});
  conv("conv3", "r2", "w3", 32, "Y");
  return b.model;
}

// residual=sum (the default): the residual Add runs as oneDNN's sum post-op, so the convolution
// keeps the kernel it runs alone, and the fused group gives, bit for bit, what the unfused nodes
// give (the convolution, then one fp32 add, then Relu); the version says so. residual=binary runs
// the add as a binary post-op (another kernel, within rounding).
TEST(OnednnLayout, ResidualAddRunsAsASumPostOpOnTheConvolutionsOwnKernel) {
  TempDir dir;
  auto model = load_model(save(residual_into_conv(), dir.path.string(), "res.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 5)}};
  const Outcome eager = run_platform("onednn:fuse=off", *model, feeds);
  ASSERT_TRUE(eager.status.ok()) << eager.status.to_string();
  for (const char* spec : {"onednn", "onednn:residual=binary"}) {
    SCOPED_TRACE(spec);
    const Outcome o = run_platform(spec, *model, feeds);
    ASSERT_TRUE(o.status.ok()) << o.status.to_string();
    std::map<std::string, NodeReport> report;
    for (const auto& [node, r] : o.reports) report[node] = r;
    ASSERT_EQ(report["relu2"].covers, "conv2,add,relu2");
    if (std::string(spec) == "onednn") {
      EXPECT_TRUE(o.trace.at("r2").bitwise_equal(eager.trace.at("r2")));
      EXPECT_TRUE(o.outputs[0].tensor.bitwise_equal(eager.outputs[0].tensor));
    }
    EXPECT_LT(max_rel_error(o.trace.at("r2"), eager.trace.at("r2")), 1e-3);
    auto backend = make_backend(*parse_platform_spec(spec));
    ASSERT_TRUE(backend.ok());
    EXPECT_EQ((*backend)->library().version.find("residual sums") != std::string::npos,
              std::string(spec) == "onednn");
  }
}

}  // namespace
}  // namespace ig::testing

namespace ig::testing {
namespace {

// Conv (32 channels: a blocked destination) -> BatchNormalization -> Relu -> Conv.
onnx::ModelProto conv_bn_relu_conv() {
  GraphBuilder b;
  b.io(true, "X", {1, 3, 16, 16});
  b.io(false, "Y", {1, 32, 16, 16});
  auto* c1 = b.node("Conv", "conv1", {"X", b.weight("w1", {32, 3, 3, 3}, 0.3f)}, {"c1"});
  GraphBuilder::ints(c1, "pads", {1, 1, 1, 1});
  std::vector<float> var(32);
  for (size_t k = 0; k < var.size(); ++k) var[k] = 0.05f + 0.01f * static_cast<float>(k);
  b.init("v", var, {32});
  b.node(
      "BatchNormalization", "bn",
      {"c1", b.weight("s", {32}, 2.0f), b.weight("b", {32}, 0.5f), b.weight("m", {32}, 0.5f), "v"},
      {"n1"});
  b.node("Relu", "relu", {"n1"}, {"r1"});
  auto* c2 = b.node("Conv", "conv2", {"r1", b.weight("w2", {32, 32, 3, 3}, 0.06f)}, {"Y"});
  GraphBuilder::ints(c2, "pads", {1, 1, 1, 1});
  return b.model;
}

// How many of BatchNormalization's outputs `y` are (x - mean) * f + B, f = scale / sqrt(var +
// eps), from its input `x`, with the multiply-add fused and not.
struct FoldedMatches {
  int64_t fused = 0, unfused = 0;
};
FoldedMatches folded_bn_matches(const Model& model, const Tensor& x, const Tensor& y) {
  FoldedMatches m;
  const int64_t plane = x.dim(2) * x.dim(3);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t k = (i / plane) % x.dim(1);
    auto param = [&](const char* n) { return model.graph.initializers.at(n).data<float>()[k]; };
    const float f = param("s") / std::sqrt(param("v") + 1e-5f);
    const float v = x.data<float>()[i] - param("m");
    m.fused += std::fma(v, f, param("b")) == y.data<float>()[i];
    m.unfused += v * f + param("b") == y.data<float>()[i];
  }
  return m;
}

// With bn=primitive, layout=blocked (the default) runs BatchNormalization on the convolution's
// nChw16c output with oneDNN's JIT kernel, which fuses the folded formula's multiply-add;
// layout=plain runs its ncsp kernel on a row-major copy, which does not (ref:bn=folded with fma=on
// and off). The final outputs of a run that makes no plain copies between primitives equal the
// traced run's.
TEST(OnednnLayout, BatchNormFollowsTheConvolutionsLayoutUnlessPlain) {
  TempDir dir;
  auto model = load_model(save(conv_bn_relu_conv(), dir.path.string(), "cbrc.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 3)}};
  const Outcome ref = run_platform("ref", *model, feeds);
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  std::map<std::string, Tensor> finals;
  for (const char* spec : {"onednn:bn=primitive", "onednn:bn=primitive,layout=plain"}) {
    SCOPED_TRACE(spec);
    const Outcome o = run_platform(spec, *model, feeds);
    ASSERT_TRUE(o.status.ok()) << o.status.to_string();
    std::map<std::string, NodeReport> report;
    for (const auto& [node, r] : o.reports) report[node] = r;
    const bool blocked = std::string(spec) == "onednn:bn=primitive";
    EXPECT_EQ(report["bn"].note.find("ncsp") == std::string::npos, blocked) << report["bn"].note;
    const FoldedMatches m = folded_bn_matches(*model, o.trace.at("c1"), o.trace.at("n1"));
    const int64_t n = o.trace.at("c1").numel();
    __builtin_cpu_init();
    if (!blocked) {
      EXPECT_EQ(m.unfused, n);
    } else if (__builtin_cpu_supports("fma")) {
      EXPECT_EQ(m.fused, n);
    }
    EXPECT_LT(max_rel_error(o.outputs[0].tensor, ref.outputs[0].tensor), 1e-3);

    auto backend = make_backend(*parse_platform_spec(spec));
    ASSERT_TRUE(backend.ok());
    auto untraced = (*backend)->run(*model, feeds, NodeCallback());
    ASSERT_TRUE(untraced.ok()) << untraced.status().to_string();
    EXPECT_TRUE((*untraced)[0].tensor.bitwise_equal(o.outputs[0].tensor));
    finals[spec] = o.outputs[0].tensor;
  }
  // The formulas differ in the last bit of some elements, and that carries to the output.
  EXPECT_FALSE(
      finals["onednn:bn=primitive"].bitwise_equal(finals["onednn:bn=primitive,layout=plain"]));
}

// How many of the group's outputs `r1` are Relu((c1 - mean) * f + B), each step rounded, from the
// convolution's output `c1` (ref:bn=folded without fma).
int64_t post_op_matches(const Model& model, const Tensor& c1, const Tensor& r1) {
  int64_t same = 0;
  for (int64_t i = 0; i < c1.numel(); ++i) {
    const int64_t k = (i / (c1.dim(2) * c1.dim(3))) % c1.dim(1);
    auto param = [&](const char* n) { return model.graph.initializers.at(n).data<float>()[k]; };
    const float f = param("s") / std::sqrt(param("v") + 1e-5f);
    const float v = c1.data<float>()[i] - param("m");
    same += std::max(v * f + param("b"), 0.0f) == r1.data<float>()[i];
  }
  return same;
}

// What a run of IG_TEST_SPEC (bn=postops) shows against the same ISA's bn=primitive,layout=plain
// run: the fused group, how many of its outputs follow the rounded formula, and whether the final
// outputs are equal.
struct PostOpCheck {
  std::string error, covers;
  int64_t matches = 0, elements = -1;
  bool same_output = false;
};
PostOpCheck check_bn_post_ops(const std::string& spec, const std::string& dir) {
  PostOpCheck out;
  auto model = load_model(save(conv_bn_relu_conv(), dir, "cbrc.onnx"));
  if (!model.ok()) {
    out.error = model.status().to_string();
    return out;
  }
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 3)}};
  const Outcome fused = run_platform(spec + ",bn=postops", *model, feeds);
  const Outcome plain = run_platform(spec + ",bn=primitive,layout=plain", *model, feeds);
  if (!fused.status.ok() || !plain.status.ok()) {
    out.error = fused.status.to_string() + " / " + plain.status.to_string();
    return out;
  }
  for (const auto& [node, r] : fused.reports)
    if (node == "relu") out.covers = r.covers;
  if (fused.trace.count("c1") + fused.trace.count("n1") != 0) out.covers += " (traced inside)";
  const Tensor& c1 = plain.trace.at("c1");
  out.elements = c1.numel();
  out.matches = post_op_matches(*model, c1, fused.trace.at("r1"));
  out.same_output = fused.outputs[0].tensor.bitwise_equal(plain.outputs[0].tensor);
  return out;
}

// bn=postops runs a BatchNormalization after a Conv as the convolution's post-ops, with the Relu
// after it: each step rounded, the bits of the ncsp kernel (layout=plain), not those of the JIT
// one, and the run's trace shows the group as one value.
TEST(OnednnLayout, BatchNormAfterAConvolutionRunsAsItsPostOps) {
  TempDir dir;
  const PostOpCheck c = check_bn_post_ops("onednn:threads=1", dir.path.string());
  ASSERT_EQ(c.error, "");
  EXPECT_EQ(c.covers, "conv1,bn,relu");
  EXPECT_EQ(c.matches, c.elements);
  EXPECT_TRUE(c.same_output);
  // The version tells records made with the batch-norm kernel or the folded weights from these.
  auto backend = make_backend(*parse_platform_spec("onednn:bn=postops"));
  ASSERT_TRUE(backend.ok());
  EXPECT_NE((*backend)->library().version.find("batch norm as post-ops"), std::string::npos);
}

// conv_bn_relu_conv with conv1's weights and bias (zeros without one) folded by hand: W * f and
// (b - mean) * f + B per output channel, f = scale / sqrt(var + eps), each in fp32; no batch norm.
onnx::ModelProto folded_by_hand(const Model& m, bool conv_bias) {
  const auto& init = m.graph.initializers;
  auto at = [&](const char* n, int64_t k) { return init.at(n).data<float>()[k]; };
  const Tensor& w = init.at("w1");
  const int64_t per_channel = w.numel() / 32;
  std::vector<float> wf(static_cast<size_t>(w.numel())), bf(32);
  for (int64_t k = 0; k < 32; ++k) {
    const float f = at("s", k) / std::sqrt(at("v", k) + 1e-5f);
    for (int64_t i = 0; i < per_channel; ++i)
      wf[static_cast<size_t>(k * per_channel + i)] = w.data<float>()[k * per_channel + i] * f;
    const float scaled = ((conv_bias ? at("cb", k) : 0.0f) - at("m", k)) * f;
    bf[static_cast<size_t>(k)] = scaled + at("b", k);
  }
  GraphBuilder b;
  b.io(true, "X", {1, 3, 16, 16});
  b.io(false, "Y", {1, 32, 16, 16});
  b.init("w1f", wf, w.shape());
  b.init("b1f", bf, {32});
  auto* c1 = b.node("Conv", "conv1", {"X", "w1f", "b1f"}, {"c1"});
  GraphBuilder::ints(c1, "pads", {1, 1, 1, 1});
  b.node("Relu", "relu", {"c1"}, {"r1"});
  b.init("w2",
         std::vector<float>(init.at("w2").data<float>(),
                            init.at("w2").data<float>() + init.at("w2").numel()),
         init.at("w2").shape());
  auto* c2 = b.node("Conv", "conv2", {"r1", "w2"}, {"Y"});
  GraphBuilder::ints(c2, "pads", {1, 1, 1, 1});
  return b.model;
}

// bn=weights (the default) folds a BatchNormalization after a Conv into the convolution's weights
// and bias, as graph optimizers fold it: the group gives, bit for bit, the convolution of
// a model whose weights were folded by hand (with and without a convolution bias), its trace shows
// the group as one value, and the version says so.
TEST(OnednnLayout, BatchNormAfterAConvolutionIsFoldedIntoItsWeights) {
  TempDir dir;
  for (bool conv_bias : {false, true}) {
    SCOPED_TRACE(conv_bias ? "with a convolution bias" : "without");
    onnx::ModelProto proto = conv_bn_relu_conv();
    if (conv_bias) {
      GraphBuilder extra;
      extra.weight("cb", {32}, 0.4f);
      *proto.mutable_graph()->add_initializer() = extra.model.graph().initializer(0);
      proto.mutable_graph()->mutable_node(0)->add_input("cb");
    }
    auto model = load_model(save(proto, dir.path.string(), "cbrc.onnx"));
    ASSERT_TRUE(model.ok()) << model.status().to_string();
    auto by_hand = load_model(save(folded_by_hand(*model, conv_bias), dir.path.string(), "f.onnx"));
    ASSERT_TRUE(by_hand.ok()) << by_hand.status().to_string();
    const std::map<std::string, Tensor> feeds = {
        {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 3)}};
    const Outcome folded = run_platform("onednn:threads=1", *model, feeds);
    const Outcome expected = run_platform("onednn:threads=1", *by_hand, feeds);
    ASSERT_TRUE(folded.status.ok() && expected.status.ok())
        << folded.status.to_string() << " / " << expected.status.to_string();
    std::map<std::string, NodeReport> report;
    for (const auto& [node, r] : folded.reports) report[node] = r;
    EXPECT_EQ(report["relu"].covers, "conv1,bn,relu");
    EXPECT_TRUE(folded.trace.at("r1").bitwise_equal(expected.trace.at("r1")));
    EXPECT_TRUE(folded.outputs[0].tensor.bitwise_equal(expected.outputs[0].tensor));
    // Other bits than the post-ops' rounded steps (else the knob would be no platform).
    const Outcome post = run_platform("onednn:threads=1,bn=postops", *model, feeds);
    ASSERT_TRUE(post.status.ok()) << post.status.to_string();
    EXPECT_FALSE(folded.trace.at("r1").bitwise_equal(post.trace.at("r1")));
    EXPECT_LT(max_rel_error(folded.outputs[0].tensor, post.outputs[0].tensor), 1e-4);
  }
  auto backend = make_backend(*parse_platform_spec("onednn"));
  ASSERT_TRUE(backend.ok());
  EXPECT_NE((*backend)->library().version.find("batch norm in the weights"), std::string::npos);
}

// A bf16 model (opset 22, where Conv takes bf16) runs its convolutions on oneDNN's bf16 kernels,
// bf16 in and out as the model declares (they ran as fp32 and wrote fp32, so a second convolution
// was refused for mixing types), within bf16's rounding of the reference. bn=weights folds only
// fp32 weights: its batch norm stays the convolution's post-ops, the bits of bn=postops, and the
// group stays fused (a fold refused would run the three nodes one by one).
TEST(OnednnLayout, ABf16ModelRunsBf16ConvolutionsWithItsBatchNormAsPostOps) {
  if (!__builtin_cpu_supports("avx512bf16")) GTEST_SKIP() << "CPU lacks avx512_bf16";
  TempDir dir;
  // Conv -> BatchNormalization -> Relu -> Conv in bf16 throughout, as an exporter writes it.
  GraphBuilder b(22);
  b.io(true, "X", {1, 3, 16, 16});
  b.io(false, "Y", {1, 8, 16, 16});
  auto* c1 = b.node("Conv", "conv1", {"X", b.weight("w1", {32, 3, 3, 3}, 0.3f)}, {"c1"});
  GraphBuilder::ints(c1, "pads", {1, 1, 1, 1});
  b.node("BatchNormalization", "bn",
         {"c1", b.weight("s", {32}, 2.0f), b.weight("b", {32}, 0.5f), b.weight("m", {32}, 0.5f),
          b.weight("v", {32}, 0.05f)},
         {"n1"});
  b.node("Relu", "relu", {"n1"}, {"r1"});
  auto* c2 = b.node("Conv", "conv2", {"r1", b.weight("w2", {8, 32, 3, 3}, 0.06f)}, {"Y"});
  GraphBuilder::ints(c2, "pads", {1, 1, 1, 1});
  onnx::ModelProto proto = b.model;
  auto* g = proto.mutable_graph();
  for (auto& init : *g->mutable_initializer()) {
    auto t = tensor_from_proto(init, "");
    ASSERT_TRUE(t.ok()) << t.status().to_string();
    Tensor v = *t;
    if (init.name() == "v")  // a variance is positive
      for (int64_t i = 0; i < v.numel(); ++i) v.data<float>()[i] = std::abs(v.data<float>()[i]);
    const std::string name = init.name();
    tensor_to_proto(convert_float_tensor(v, DType::kBFloat16), name, &init);
  }
  for (auto* io : {g->mutable_input(0), g->mutable_output(0)})
    io->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::BFLOAT16);
  auto model = load_model(save(proto, dir.path.string(), "bf16.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::map<std::string, Tensor> feeds = {
      {"X", convert_float_tensor(random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 3),
                                 DType::kBFloat16)}};
  const Outcome folded = run_platform("onednn:threads=1", *model, feeds);
  const Outcome post = run_platform("onednn:threads=1,bn=postops", *model, feeds);
  ASSERT_TRUE(folded.status.ok() && post.status.ok())
      << folded.status.to_string() << " / " << post.status.to_string();
  std::map<std::string, NodeReport> report;
  for (const auto& [node, r] : folded.reports) report[node] = r;
  EXPECT_EQ(report["relu"].covers, "conv1,bn,relu");
  EXPECT_TRUE(folded.trace.at("r1").bitwise_equal(post.trace.at("r1")));
  EXPECT_TRUE(folded.outputs[0].tensor.bitwise_equal(post.outputs[0].tensor));
  EXPECT_EQ(folded.trace.at("r1").dtype(), DType::kBFloat16);
  EXPECT_EQ(folded.outputs[0].tensor.dtype(), DType::kBFloat16);
  EXPECT_NE(report["conv2"].note.find("bf16"), std::string::npos) << report["conv2"].note;
  const Outcome ref = run_platform("ref", *model, feeds);
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  // Within bf16's rounding, against the largest output (outputs near zero cancel).
  const Tensor got = convert_float_tensor(folded.outputs[0].tensor, DType::kFloat32);
  const Tensor want = convert_float_tensor(ref.outputs[0].tensor, DType::kFloat32);
  float worst = 0, largest = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    worst = std::max(worst, std::abs(got.data<float>()[i] - want.data<float>()[i]));
    largest = std::max(largest, std::abs(want.data<float>()[i]));
  }
  EXPECT_LT(worst, 2e-2f * largest) << worst << " of " << largest;
}

// The folded weights (bn=weights) and the post-ops' per-channel tensors (bn=postops) are kept
// across runs of one model file, but a run that feeds its own batch-norm mean computes them from
// it: a later run is never given an earlier one's.
TEST(OnednnLayout, AFedBatchNormParameterIsNotReadFromAnEarlierRun) {
  TempDir dir;
  onnx::ModelProto proto = conv_bn_relu_conv();
  // The mean is also a graph input: its initializer is the default a feed may replace.
  auto* m = proto.mutable_graph()->add_input();
  m->set_name("m");
  m->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  m->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(32);
  auto model = load_model(save(proto, dir.path.string(), "cbrc.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Tensor x = random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 3);
  const Tensor mean = Tensor::from_vector(std::vector<float>(32, -0.25f), {32});
  auto run = [&](Backend& b, bool feed_mean) {
    std::map<std::string, Tensor> feeds = {{"X", x}};
    if (feed_mean) feeds["m"] = mean;
    auto out = b.run(*model, feeds, NodeCallback());
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    return out.ok() ? (*out)[0].tensor : Tensor();
  };
  for (const char* spec : {"onednn:threads=1", "onednn:threads=1,bn=postops"}) {
    SCOPED_TRACE(spec);
    auto cached = make_backend(*parse_platform_spec(spec));
    auto fresh = make_backend(*parse_platform_spec(spec));
    ASSERT_TRUE(cached.ok() && fresh.ok());
    const Tensor first = run(**cached, false);
    const Tensor fed = run(**cached, true);
    EXPECT_FALSE(fed.bitwise_equal(first));
    EXPECT_TRUE(fed.bitwise_equal(run(**fresh, true)));
    EXPECT_TRUE(run(**cached, false).bitwise_equal(first));
  }
}

TEST(OnednnLayoutChild, DISABLED_Run) {
  TempDir dir;
  const PostOpCheck c = check_bn_post_ops(std::getenv("IG_TEST_SPEC"), dir.path.string());
  std::printf("\nERROR %s\nCOVERS %s\nMATCHES %lld of %lld\nSAME %d\n", c.error.c_str(),
              c.covers.c_str(), static_cast<long long>(c.matches),
              static_cast<long long>(c.elements), c.same_output);
}

// Every ISA the sweeps cap oneDNN at takes the batch norm as post-ops (a refused group would run
// the batch-norm kernel instead: other bits under the same spec).
TEST(OnednnLayout, EveryIsaCapTakesTheBatchNormAsPostOps) {
  __builtin_cpu_init();
  for (const char* isa : {"sse41", "avx", "avx2", "avx512_core"}) {
    if (std::string(isa) == "avx512_core" && !__builtin_cpu_supports("avx512f")) continue;
    if (std::string(isa) == "avx2" && !__builtin_cpu_supports("avx2")) continue;
    SCOPED_TRACE(isa);
    const std::string spec = std::string("onednn:isa=") + isa;
    const ChildResult r = run_child("OnednnLayoutChild.DISABLED_Run", child_env(spec));
    ASSERT_EQ(r.signal, 0) << r.out;
    EXPECT_EQ(child_field(r.out, "ERROR"), "") << r.out;
    EXPECT_EQ(child_field(r.out, "COVERS"), "conv1,bn,relu") << r.out;
    EXPECT_EQ(child_field(r.out, "MATCHES"), "8192 of 8192") << r.out;
    EXPECT_EQ(child_field(r.out, "SAME"), "1") << r.out;
  }
}

}  // namespace
}  // namespace ig::testing

#include <set>

#include "backend_test_util.h"

namespace ig::testing {
namespace {

struct ConvnetFixture : ::testing::Test {
  TempDir dir;
  Model model;
  std::map<std::string, Tensor> feeds;
  Outcome reference;
  void SetUp() override {
    auto m = load_model(save(small_convnet(), dir.path.string(), "convnet.onnx"));
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    model = std::move(*m);
    feeds["X"] = random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 7);
    reference = run_platform("ref", model, feeds);
    ASSERT_TRUE(reference.status.ok()) << reference.status.to_string();
  }
};

TEST_F(ConvnetFixture, OnednnAgreesWithReference) {
  for (const std::string spec : {"onednn", "onednn:fuse=off", "onednn:conv=direct",
                                 "onednn:conv=winograd", "onednn:threads=2"}) {
    Outcome o = run_platform(spec, model, feeds);
    ASSERT_TRUE(o.status.ok()) << spec << ": " << o.status.to_string();
    EXPECT_LT(max_rel_error(o.outputs[0].tensor, reference.outputs[0].tensor), 1e-3) << spec;
    // Every traced value agrees with the reference's value of the same name.
    for (const auto& [value, t] : o.trace) {
      ASSERT_TRUE(reference.trace.count(value)) << value;
      EXPECT_LT(max_rel_error(t, reference.trace.at(value)), 1e-3) << spec << " " << value;
    }
  }
}

TEST_F(ConvnetFixture, FusionReportsWhichNodesATensorCovers) {
  Outcome fused = run_platform("onednn", model, feeds);
  ASSERT_TRUE(fused.status.ok());
  std::map<std::string, std::string> covers;
  for (const auto& [node, r] : fused.reports) covers[node] = r.covers;
  // conv1+relu1 is one primitive (eltwise post-op); conv2+add1+relu2 another (binary + eltwise).
  EXPECT_EQ(covers.count("conv1"), 0u);
  EXPECT_EQ(covers["relu1"], "conv1,relu1");
  EXPECT_EQ(covers["relu2"], "conv2,add1,relu2");
  EXPECT_EQ(fused.trace.count("c1"), 0u);  // fused away: never materialized
  EXPECT_EQ(fused.trace.count("r1"), 1u);

  Outcome eager = run_platform("onednn:fuse=off", model, feeds);
  ASSERT_TRUE(eager.status.ok());
  EXPECT_EQ(eager.reports.size(), model.graph.nodes.size());
  for (const auto& [node, r] : eager.reports) EXPECT_EQ(r.covers, "") << node;
  EXPECT_EQ(eager.trace.count("c1"), 1u);
}

TEST_F(ConvnetFixture, NotesNameTheImplementation) {
  Outcome o = run_platform("onednn:fuse=off", model, feeds);
  ASSERT_TRUE(o.status.ok());
  std::map<std::string, std::string> note;
  for (const auto& [node, r] : o.reports) note[node] = r.note;
  EXPECT_NE(note["conv1"].find(':'), std::string::npos) << note["conv1"];  // e.g. "jit:avx512_core"
  EXPECT_EQ(note["flatten"], "data movement (reference kernel)");
}

TEST(Onednn, OnnxConv2dTestDataAgrees) {
  const std::string dir = "/usr/include/onnx/backend/test/data/pytorch-converted/test_Conv2d";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " missing (libonnx-testdata)";
  auto model = load_model(dir + "/model.onnx");
  ASSERT_TRUE(model.ok());
  auto in = read_tensor_pb(dir + "/test_data_set_0/input_0.pb");
  auto want = read_tensor_pb(dir + "/test_data_set_0/output_0.pb");
  ASSERT_TRUE(in.ok() && want.ok());
  const std::string input = model->graph.runtime_inputs()[0]->name;
  Outcome o = run_platform("onednn", *model, {{input, *in}});
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  EXPECT_LT(max_rel_error(o.outputs[0].tensor, *want), 1e-3);
}

// oneDNN's batch normalization folds scale / sqrt(var + eps) per channel: the emulator's
// bn=folded reproduces it bit for bit at every ISA, where the ONNX formula does not.
TEST(Onednn, BatchNormIsTheFoldedFormulaBitForBit) {
  GraphBuilder b;
  b.io(true, "X", {1, 8, 12, 12});
  b.io(false, "Y", {1, 8, 12, 12});
  tensor_to_proto(
      Tensor::from_vector<float>({0.083f, 0.09f, 0.071f, 0.11f, 0.05f, 0.3f, 0.077f, 0.12f}, {8}),
      "v", b.g->add_initializer());
  b.node("BatchNormalization", "bn",
         {"X", b.weight("s", {8}, 2.0f), b.weight("b", {8}, 0.5f), b.weight("m", {8}, 0.5f), "v"},
         {"Y"});
  TempDir dir;
  auto model = load_model(save(b.model, dir.path.string(), "bn.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 8, 12, 12}, 4)}};
  Outcome folded = run_platform("ref:bn=folded", *model, feeds);
  Outcome onnx = run_platform("ref", *model, feeds);
  Outcome dnnl = run_platform("onednn", *model, feeds);
  ASSERT_TRUE(folded.status.ok() && onnx.status.ok() && dnnl.status.ok())
      << dnnl.status.to_string();
  EXPECT_TRUE(dnnl.outputs[0].tensor.bitwise_equal(folded.outputs[0].tensor));
  EXPECT_FALSE(dnnl.outputs[0].tensor.bitwise_equal(onnx.outputs[0].tensor));
}

// fpmath lets oneDNN convert f32 inside primitives where the CPU has an implementation that does
// (AMX on oneDNN 2.6): then the outputs move by bf16's rounding; elsewhere the knob is accepted
// and the primitives stay in f32, bit for bit. Either way nothing else changes.
TEST_F(ConvnetFixture, FpmathBf16IsStrictOrWithinBf16Rounding) {
  Outcome strict = run_platform("onednn:fuse=off", model, feeds);
  Outcome bf16 = run_platform("onednn:fpmath=bf16,fuse=off", model, feeds);
  ASSERT_TRUE(strict.status.ok() && bf16.status.ok()) << bf16.status.to_string();
  const Tensor& a = strict.outputs[0].tensor;
  const Tensor& b = bf16.outputs[0].tensor;
  if (!a.bitwise_equal(b)) {
    EXPECT_LT(max_rel_error(b, a), 0.05);  // a few bf16 ulps (2^-8)
  }
  auto bad = make_backend(*parse_platform_spec("onednn:fpmath=fp8"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("fpmath=fp8 is not valid (valid values: strict, bf16, "
                                        "f16, any)"),
            std::string::npos)
      << bad.status().message();
}

TEST(Onednn, KnobsAreValidated) {
  auto bad = make_backend(*parse_platform_spec("onednn:isa=avx3"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "isa=avx3 is not valid (valid values: sse41, avx, avx2, "
                "avx512_core, avx512_core_vnni, avx512_core_bf16, avx512_core_amx, all)"),
            std::string::npos)
      << bad.status().message();
  auto key = make_backend(*parse_platform_spec("onednn:fusion=on"));
  EXPECT_NE(key.status().message().find("unknown key 'fusion'"), std::string::npos);
  auto env = BackendRegistry::global().find("onednn")->environment(
      *parse_platform_spec("onednn:isa=avx2,threads=2"));
  ASSERT_TRUE(env.ok());
  EXPECT_EQ((*env)["DNNL_MAX_CPU_ISA"], "AVX2");
  EXPECT_EQ((*env)["OMP_NUM_THREADS"], "2");
}

// An op oneDNN has no primitive for: unsupported with a reason, or run on ref with fallback=ref.
TEST(Onednn, UnsupportedNodesFallBackToRef) {
  TempDir dir;
  GraphBuilder b;
  b.io(true, "X", {1, 4, 5, 5});
  b.io(false, "Y", {1, 4, 5, 5});
  b.node("Relu", "relu", {"X"}, {"r"});
  b.node("Erf", "erf", {"r"}, {"Y"});
  auto model = load_model(save(b.model, dir.path.string(), "erf.onnx"));
  ASSERT_TRUE(model.ok());
  std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 4, 5, 5}, 3)}};

  auto plain = make_backend(*parse_platform_spec("onednn"));
  ASSERT_TRUE(plain.ok());
  auto why = (*plain)->unsupported_nodes_of(*model);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].second.message().find("no oneDNN mapping for Erf"), std::string::npos);

  Outcome mixed = run_platform("onednn:fallback=ref", *model, feeds);
  ASSERT_TRUE(mixed.status.ok()) << mixed.status.to_string();
  Outcome ref = run_platform("ref", *model, feeds);
  EXPECT_TRUE(mixed.outputs[0].tensor.bitwise_equal(ref.outputs[0].tensor));
  EXPECT_EQ(mixed.reports.back().second.note.rfind("fallback=ref: ", 0), 0u);
  EXPECT_EQ((*make_backend(*parse_platform_spec("onednn:fallback=ref")))->name(), "onednn+ref");
}

// DNNL_MAX_CPU_ISA is read once per process: each level runs in a child started with it.
TEST(Onednn, IsaLevelsGiveDifferentBitsOnALongReduction) {
  TempDir dir;
  const std::string path = save(long_conv(), dir.path.string(), "long_conv.onnx");
  std::map<std::string, std::string> hash_of;
  std::set<std::string> distinct;
  for (const std::string isa : {"sse41", "avx", "avx2", "avx512_core"}) {
    auto env = child_env("onednn:conv=direct,isa=" + isa);
    env["IG_TEST_MODEL"] = path;
    ChildResult r = run_child("Child.DISABLED_RunSpec", env);
    const std::string error = child_field(r.out, "ERROR");
    if (error.find("which this CPU lacks") != std::string::npos) {
      std::printf("skip isa=%s: %s\n", isa.c_str(), error.c_str());
      continue;
    }
    ASSERT_EQ(r.signal, 0) << isa;
    ASSERT_EQ(error, "") << isa;
    hash_of[isa] = child_field(r.out, "OUT");
    distinct.insert(hash_of[isa]);
    std::printf("isa=%s %s %s\n", isa.c_str(), hash_of[isa].c_str(),
                child_field(r.out, "IMPL conv").c_str());
  }
  // Measured: sse41, avx2 and avx512_core run different kernels with different bits; avx runs the
  // same blocking as sse41. Without AVX-512 (AMD EPYC of this CI) two patterns remain.
  ASSERT_TRUE(hash_of.count("avx2")) << "this test needs an AVX2 CPU";
  EXPECT_GE(distinct.size(), hash_of.count("avx512_core") ? 3u : 2u);
  EXPECT_NE(hash_of["sse41"], hash_of["avx2"]);
}

}  // namespace
}  // namespace ig::testing

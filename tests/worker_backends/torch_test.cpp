// The `torch` platform (ATen per node, in the dlopen'ed module): agreement with the reference
// kernels, PyTorch eager's own bits, the mkldnn knob, refusals and knob validation.
#include "backend_test_util.h"
#include "model/npy.h"

namespace ig::testing {
namespace {

struct TorchConvnet : ::testing::Test {
  TempDir dir;
  Model model;
  std::map<std::string, Tensor> feeds;
  Outcome reference;
  void SetUp() override {
    REQUIRE_TORCH();
    auto m = load_model(save(small_convnet(), dir.path.string(), "convnet.onnx"));
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    model = std::move(*m);
    feeds["X"] = random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 7);
    reference = run_platform("ref", model, feeds);
    ASSERT_TRUE(reference.status.ok()) << reference.status.to_string();
  }
};

TEST_F(TorchConvnet, EveryLayerAgreesWithTheReference) {
  for (const std::string spec :
       {"torch", "torch:mkldnn=off", "torch:threads=2", "torch:deterministic=on"}) {
    Outcome o = run_platform(spec, model, feeds);
    ASSERT_TRUE(o.status.ok()) << spec << ": " << o.status.to_string();
    EXPECT_LT(max_rel_error(o.outputs[0].tensor, reference.outputs[0].tensor), 1e-4) << spec;
    EXPECT_EQ(o.trace.size(), reference.trace.size()) << spec;
    for (const auto& [value, t] : o.trace) {
      ASSERT_TRUE(reference.trace.count(value)) << value;
      EXPECT_LT(max_rel_error(t, reference.trace.at(value)), 1e-4) << spec << " " << value;
    }
  }
}

TEST_F(TorchConvnet, NotesNameTheAtenCall) {
  Outcome o = run_platform("torch:mkldnn=off", model, feeds);
  ASSERT_TRUE(o.status.ok());
  std::map<std::string, std::string> note;
  for (const auto& [node, r] : o.reports) note[node] = r.note;
  EXPECT_EQ(note["conv1"], "aten::conv2d (mkldnn off)");
  EXPECT_EQ(note["fc"], "aten::linear (mkldnn off)");
  EXPECT_EQ(note["gap"], "aten::adaptive_avg_pool2d (mkldnn off)");
  EXPECT_EQ(note["flatten"], "data movement (reference kernel)");
}

// PyTorch eager (python3-torch, the same 1.13 as libtorch-dev) on a model it exported: the
// platform reproduces its output bit for bit, with oneDNN kernels and with native ones, and the
// two differ from each other.
TEST(Torch, BitForBitWithPytorchEager) {
  REQUIRE_TORCH();
  TempDir dir;
  const std::string script =
      std::string(INFERGAP_SOURCE_DIR) + "/tests/support/torch_eager_reference.py";
  const std::string cmd =
      "/usr/bin/python3 -c 'import torch' 2>/dev/null && OMP_NUM_THREADS=1 /usr/bin/python3 " +
      script + " " + dir.path.string() + " 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "python3-torch unavailable";
  auto model = load_model(dir.file("model.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  auto x = read_npy(dir.file("x.npy"));
  auto y_mkldnn = read_npy(dir.file("y_mkldnn.npy"));
  auto y_native = read_npy(dir.file("y_native.npy"));
  ASSERT_TRUE(x.ok() && y_mkldnn.ok() && y_native.ok());
  Outcome on = run_platform("torch:mkldnn=on", *model, {{"x", *x}});
  Outcome off = run_platform("torch:mkldnn=off", *model, {{"x", *x}});
  ASSERT_TRUE(on.status.ok()) << on.status.to_string();
  ASSERT_TRUE(off.status.ok()) << off.status.to_string();
  EXPECT_TRUE(on.outputs[0].tensor.bitwise_equal(*y_mkldnn))
      << max_rel_error(on.outputs[0].tensor, *y_mkldnn);
  EXPECT_TRUE(off.outputs[0].tensor.bitwise_equal(*y_native))
      << max_rel_error(off.outputs[0].tensor, *y_native);
}

// An operator with no ATen mapping is refused naming the node; fallback=ref runs it on the
// reference kernels.
TEST(Torch, UnmappedOperatorIsRefusedOrFallsBack) {
  REQUIRE_TORCH();
  GraphBuilder b;
  b.io(true, "X", {2, 3});
  b.io(false, "Y", {2, 3});
  b.node("Relu", "relu", {"X"}, {"r"});
  auto* h = b.node("Hardmax", "argmaxish", {"r"}, {"Y"});
  GraphBuilder::integer(h, "axis", 1);
  TempDir dir;
  auto model = load_model(save(b.model, dir.path.string(), "hardmax.onnx"));
  ASSERT_TRUE(model.ok());
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {2, 3}, 3)}};
  Outcome refused = run_platform("torch", *model, feeds);
  ASSERT_FALSE(refused.status.ok());
  EXPECT_NE(refused.status.message().find("Hardmax 'argmaxish'"), std::string::npos)
      << refused.status.message();
  EXPECT_NE(refused.status.message().find("ATen"), std::string::npos) << refused.status.message();

  Outcome fallback = run_platform("torch:fallback=ref", *model, feeds);
  ASSERT_TRUE(fallback.status.ok()) << fallback.status.to_string();
  Outcome ref = run_platform("ref", *model, feeds);
  EXPECT_TRUE(fallback.outputs[0].tensor.bitwise_equal(ref.outputs[0].tensor));
}

TEST(Torch, KnobsAreValidated) {
  REQUIRE_TORCH();
  auto bad = make_backend(*parse_platform_spec("torch:mkldnn=maybe"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("on, off"), std::string::npos) << bad.status().message();
  auto unknown = make_backend(*parse_platform_spec("torch:cudnn=on"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("mkldnn"), std::string::npos)
      << unknown.status().message();
  auto threads = make_backend(*parse_platform_spec("torch:threads=0"));
  EXPECT_FALSE(threads.ok());
}

// ONNX's recurrent node tests: LSTM with ONNX's gate order re-chunked for at::lstm agrees with
// the stored outputs; what ATen cannot express (peepholes, GRU with linear_before_reset=0,
// batch-first layout) is refused naming the node.
TEST(Torch, RecurrentNodeTestsAgreeOrAreRefused) {
  REQUIRE_TORCH();
  const std::string root = "/usr/include/onnx/backend/test/data/node/";
  if (!std::filesystem::exists(root + "test_lstm_defaults")) GTEST_SKIP() << "libonnx-testdata";
  std::map<std::string, std::string> outcome;
  for (const char* name :
       {"test_lstm_defaults", "test_lstm_with_initial_bias", "test_lstm_with_peepholes",
        "test_lstm_batchwise", "test_gru_defaults", "test_gru_with_initial_bias"}) {
    const std::string dir = root + name;
    auto model = load_model(dir + "/model.onnx");
    ASSERT_TRUE(model.ok()) << name;
    std::map<std::string, Tensor> feeds;
    const auto runtime = model->graph.runtime_inputs();
    for (size_t i = 0; i < runtime.size(); ++i) {
      auto t = read_tensor_pb(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
      ASSERT_TRUE(t.ok()) << name;
      feeds[runtime[i]->name] = *t;
    }
    Outcome o = run_platform("torch", *model, feeds);
    if (!o.status.ok()) {
      EXPECT_EQ(o.status.code(), StatusCode::kUnsupported) << name << o.status.to_string();
      outcome[name] = "refused";
      continue;
    }
    for (size_t i = 0; i < o.outputs.size(); ++i) {
      auto want = read_tensor_pb(dir + "/test_data_set_0/output_" + std::to_string(i) + ".pb");
      ASSERT_TRUE(want.ok()) << name;
      EXPECT_LT(max_rel_error(o.outputs[i].tensor, *want), 1e-5) << name << " output " << i;
    }
    outcome[name] = "ok";
  }
  EXPECT_EQ(outcome["test_lstm_defaults"], "ok");
  EXPECT_EQ(outcome["test_lstm_with_initial_bias"], "ok");
  EXPECT_EQ(outcome["test_lstm_with_peepholes"], "refused");
  EXPECT_EQ(outcome["test_lstm_batchwise"], "refused");
  EXPECT_EQ(outcome["test_gru_defaults"], "refused");  // linear_before_reset=0
}

// PyTorch's own exports in the ONNX test data (pytorch-converted, pytorch-operator): every model
// the platform maps agrees with the stored outputs.
TEST(Torch, OnnxPytorchTestDataAgrees) {
  REQUIRE_TORCH();
  const std::string root = "/usr/include/onnx/backend/test/data";
  if (!std::filesystem::exists(root + "/pytorch-converted")) GTEST_SKIP() << "libonnx-testdata";
  int ran = 0, refused = 0;
  for (const char* group : {"pytorch-converted", "pytorch-operator"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root + "/" + group)) {
      const std::string dir = entry.path().string();
      auto model = load_model(dir + "/model.onnx");
      if (!model.ok()) continue;
      auto runtime = model->graph.runtime_inputs();
      std::map<std::string, Tensor> feeds;
      bool ok = true;
      for (size_t i = 0; i < runtime.size(); ++i) {
        auto t = read_tensor_pb(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
        if (!t.ok())
          ok = false;
        else
          feeds[runtime[i]->name] = *t;
      }
      auto want = read_tensor_pb(dir + "/test_data_set_0/output_0.pb");
      if (!ok || !want.ok() || want->dtype() != DType::kFloat32) continue;
      Outcome o = run_platform("torch", *model, feeds);
      if (!o.status.ok()) {
        EXPECT_EQ(o.status.code(), StatusCode::kUnsupported) << dir << ": " << o.status.to_string();
        ++refused;
        continue;
      }
      ++ran;
      EXPECT_LT(max_rel_error(o.outputs[0].tensor, *want), 1e-4) << dir;
    }
  }
  EXPECT_GE(ran, 50) << "refused " << refused;
  std::printf("torch ran %d of PyTorch's test models, refused %d\n", ran, refused);
}

}  // namespace
}  // namespace ig::testing

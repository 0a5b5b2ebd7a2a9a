// The cuda backend on a GPU against the reference backend; without a GPU (or without the backend
// built) these skip, saying why, except the checks that need neither.
#include "backend_test_util.h"

#ifdef INFERGAP_CUDA_BACKEND
#include <cuda_runtime_api.h>

#include <fstream>

#include "backends/cuda/cuda_common.h"
#endif

namespace ig::testing {
namespace {

#ifdef INFERGAP_CUDA_BACKEND

// Why GPU tests cannot run here ("" when a device is present).
std::string no_gpu_reason() {
  Status st = cuda::device_status(0);
  return st.ok() ? "" : st.message();
}

#define SKIP_WITHOUT_GPU()                                                   \
  do {                                                                       \
    const std::string why = no_gpu_reason();                                 \
    if (!why.empty()) GTEST_SKIP() << "needs an NVIDIA GPU (" << why << ")"; \
  } while (0)

TEST(CudaBackend, WithoutAGpuTheFactorySaysWhyAndDoesNotCrash) {
  const std::string why = no_gpu_reason();
  if (why.empty()) GTEST_SKIP() << "a GPU is present: " << cuda::device_description(0);
  auto spec = parse_platform_spec("cuda:algo=winograd");
  auto backend = make_backend(*spec);
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(backend.status().message().find("no CUDA device: cudaGetDeviceCount returned"),
            std::string::npos)
      << backend.status().message();
  EXPECT_EQ(backend.status().message().rfind("platform 'cuda:algo=winograd': ", 0), 0u);
}

TEST(CudaBackend, CublasEntryPointsResolveAtRunTime) {
  auto api = cuda::cublas();  // dlopen: works without a GPU
  ASSERT_TRUE(api.ok()) << api.status().to_string();
  EXPECT_NE((*api)->sgemm, nullptr);
  EXPECT_NE((*api)->sgemm_strided_batched, nullptr);
  EXPECT_STREQ((*api)->status_name(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED");
}

TEST(CudaBackend, Tf32OffAlsoSetsTheDriverOverride) {
  auto env = child_env("cuda:tf32=off");
  EXPECT_EQ(env["NVIDIA_TF32_OVERRIDE"], "0");
  EXPECT_EQ(child_env("cuda:tf32=on").count("NVIDIA_TF32_OVERRIDE"), 0u);
}

struct CudaConvnet : ::testing::Test {
  TempDir dir;
  Model model;
  std::map<std::string, Tensor> feeds;
  Outcome reference;
  void SetUp() override {
    SKIP_WITHOUT_GPU();
    auto m = load_model(save(small_convnet(), dir.path.string(), "convnet.onnx"));
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    model = std::move(*m);
    feeds["X"] = random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 7);
    reference = run_platform("ref", model, feeds);
    ASSERT_TRUE(reference.status.ok()) << reference.status.to_string();
  }
  std::map<std::string, std::string> notes(const Outcome& o) {
    std::map<std::string, std::string> n;
    for (const auto& [node, r] : o.reports) n[node] = r.note;
    return n;
  }
  void expect_close(const Outcome& o, const std::string& spec, double tol) {
    ASSERT_TRUE(o.status.ok()) << spec << ": " << o.status.to_string();
    EXPECT_LT(max_rel_error(o.outputs[0].tensor, reference.outputs[0].tensor), tol) << spec;
    for (const auto& [value, t] : o.trace) {
      ASSERT_TRUE(reference.trace.count(value)) << value;
      EXPECT_LT(max_rel_error(t, reference.trace.at(value)), tol) << spec << " " << value;
    }
  }
};

TEST_F(CudaConvnet, EveryAlgorithmRuleAgreesWithTheReferenceAndIsNoted) {
  for (size_t i = 0; i < static_cast<size_t>(cuda::Algo::kCount); ++i) {
    const std::string algo = cuda::kAlgoNames[i];
    const std::string spec = "cuda:algo=" + algo;
    Outcome o = run_platform(spec, model, feeds);
    expect_close(o, spec, 1e-3);
    for (const char* conv : {"conv1", "conv2"}) {
      const std::string note = notes(o)[conv];
      EXPECT_EQ(note.rfind("algo=", 0), 0u) << spec << " " << conv << ": " << note;
      // A fixed algorithm is used, or the fallback says it was requested and why not.
      if (i < cuda::kFixedAlgoCount && note.rfind("algo=" + algo + " ", 0) != 0 &&
          note != "algo=" + algo) {
        EXPECT_NE(note.find(algo + " requested: "), std::string::npos) << note;
      }
    }
    EXPECT_EQ(notes(o)["fc"], "cublasSgemm math=pedantic");
  }
}

TEST_F(CudaConvnet, PerLayerListAssignsAlgorithmsInNodeOrder) {
  Outcome o = run_platform("cuda:algo=gemm/implicit-gemm", model, feeds);
  expect_close(o, "per-layer", 1e-3);
  EXPECT_EQ(notes(o)["conv1"].rfind("algo=gemm", 0), 0u) << notes(o)["conv1"];
  EXPECT_EQ(notes(o)["conv2"].rfind("algo=implicit-gemm", 0), 0u) << notes(o)["conv2"];
  Outcome wrong = run_platform("cuda:algo=gemm/fft/direct", model, feeds);
  ASSERT_FALSE(wrong.status.ok());
  EXPECT_NE(wrong.status.message().find("lists 3 algorithms but the model has 2 convolutions"),
            std::string::npos)
      << wrong.status.message();
}

TEST_F(CudaConvnet, FixedAlgorithmRepeatsBitForBit) {
  Outcome a = run_platform("cuda:algo=implicit-gemm", model, feeds);
  Outcome b = run_platform("cuda:algo=implicit-gemm", model, feeds);
  ASSERT_TRUE(a.status.ok() && b.status.ok());
  EXPECT_EQ(hex_hash(a.outputs[0].tensor), hex_hash(b.outputs[0].tensor));
}

// Without a trace, outputs stay on the device between nodes: the same bits come back.
TEST_F(CudaConvnet, UntracedRunsKeepValuesOnTheDeviceWithTheSameBits) {
  const std::string spec_text = "cuda:algo=implicit-gemm";
  Outcome traced = run_platform(spec_text, model, feeds);
  ASSERT_TRUE(traced.status.ok()) << traced.status.to_string();
  auto spec = parse_platform_spec(spec_text);
  ASSERT_TRUE(spec.ok());
  auto backend = make_backend(*spec);
  ASSERT_TRUE(backend.ok()) << backend.status().to_string();
  auto untraced = (*backend)->run(model, feeds, nullptr);
  ASSERT_TRUE(untraced.ok()) << untraced.status().to_string();
  EXPECT_EQ(hex_hash(untraced->at(0).tensor), hex_hash(traced.outputs[0].tensor));
}

// $INFERGAP_CUDA_ALGO_LOG gets the algorithm each Conv's note names, in node order.
TEST_F(CudaConvnet, AlgorithmLogListsTheAlgorithmsTheNotesName) {
  const std::string log = dir.file("algos.log");
  ASSERT_EQ(setenv("INFERGAP_CUDA_ALGO_LOG", log.c_str(), 1), 0);
  Outcome o = run_platform("cuda:algo=gemm/implicit-gemm", model, feeds);
  unsetenv("INFERGAP_CUDA_ALGO_LOG");
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  std::string expected = model.path + "\t";
  for (const char* conv : {"conv1", "conv2"}) {
    const std::string note = notes(o)[conv];  // "algo=NAME[ math=...][ (...)]"
    expected += (expected.back() == '\t' ? "" : "/") + note.substr(5, note.find(' ') - 5);
  }
  std::ifstream in(log);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, expected);
}

TEST_F(CudaConvnet, Tf32AndDeterministicModesRunAndSayWhatTheyDid) {
  Outcome tf32 = run_platform("cuda:tf32=on", model, feeds);
  expect_close(tf32, "tf32", 2e-2);  // TF32 keeps 10 mantissa bits of each product's inputs
  EXPECT_NE(notes(tf32)["conv1"].find(" math="), std::string::npos) << notes(tf32)["conv1"];
  EXPECT_EQ(notes(tf32)["fc"], "cublasSgemm math=tf32");
  Outcome det = run_platform("cuda:algo=autotune,deterministic=on", model, feeds);
  expect_close(det, "deterministic", 1e-3);
  EXPECT_EQ(notes(det)["pool1"], "cudnnPoolingForward max-deterministic");
}

// Operators beyond the convnet, each against the reference on small seeded tensors.
TEST(CudaOps, ElementwisePoolingAndNormalizationMatchTheReference) {
  SKIP_WITHOUT_GPU();
  GraphBuilder b(13);
  b.io(true, "X", {2, 4, 6, 6});
  b.io(false, "P", {2, 3, 5});
  // var must be positive: |uniform| + 0.5.
  Tensor var = random_uniform_tensor(DType::kFloat32, {4}, 3);
  for (int64_t i = 0; i < 4; ++i) var.data<float>()[i] += 0.5f;
  tensor_to_proto(var, "var", b.g->add_initializer());
  b.node("BatchNormalization", "bn",
         {"X", b.weight("s", {4}, 1.0f), b.weight("bb", {4}, 0.5f), b.weight("mean", {4}, 0.2f),
          "var"},
         {"bn"});
  b.node("Sigmoid", "sig", {"bn"}, {"s1"});
  b.node("Tanh", "tanh", {"s1"}, {"t1"});
  b.node("Elu", "elu", {"bn"}, {"e1"});
  b.node("Mul", "mul", {"t1", "e1"}, {"m1"});
  b.node("Sub", "sub", {b.weight("row", {6}, 1.0f), "m1"}, {"d1"});  // the first input broadcasts
  auto* ap = b.node("AveragePool", "avg", {"d1"}, {"ap"});
  GraphBuilder::ints(ap, "kernel_shape", {3, 3});
  GraphBuilder::ints(ap, "pads", {1, 1, 1, 1});
  GraphBuilder::ints(ap, "strides", {2, 2});
  GraphBuilder::integer(ap, "count_include_pad", 1);
  b.node("Relu", "relu", {"ap"}, {"r1"});     // [2, 4, 3, 3]
  b.node("Flatten", "flat", {"r1"}, {"f1"});  // [2, 36]
  b.node("Gemm", "fc", {"f1", b.weight("w", {36, 15}, 0.3f)}, {"g1"});
  b.node("Reshape", "reshape",
         {"g1",
          [&] {
            tensor_to_proto(Tensor::from_vector<int64_t>({2, 3, 5}, {3}), "shape",
                            b.g->add_initializer());
            return std::string("shape");
          }()},
         {"g3"});
  b.node("MatMul", "mm", {"g3", b.weight("w5", {5, 5}, 0.5f)}, {"mm"});  // batch folds into M
  b.node("LogSoftmax", "lsm", {"mm"}, {"P"});
  TempDir dir;
  auto m = load_model(save(b.model, dir.path.string(), "ops.onnx"));
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {2, 4, 6, 6}, 11)}};
  Outcome ref = run_platform("ref", *m, feeds);
  ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
  Outcome gpu = run_platform("cuda", *m, feeds);
  ASSERT_TRUE(gpu.status.ok()) << gpu.status.to_string();
  for (const auto& [value, t] : gpu.trace)
    EXPECT_LT(max_rel_error(t, ref.trace.at(value)), 1e-4) << value;
  std::map<std::string, std::string> note;
  for (const auto& [node, r] : gpu.reports) note[node] = r.note;
  EXPECT_EQ(note["sub"], "cudnnOpTensor");
  EXPECT_EQ(note["avg"], "cudnnPoolingForward average-include-pad");
  EXPECT_EQ(note["flat"], "data movement (reference kernel)");
  EXPECT_EQ(note["lsm"], "cudnnSoftmaxForward log");
}

TEST(CudaOps, UnmappedOperatorsFailOrFallBackAsTheSpecSays) {
  SKIP_WITHOUT_GPU();
  GraphBuilder b(13);
  b.io(true, "X", {1, 2, 4, 4});
  b.io(false, "Y", {1, 2, 4, 4});
  b.node("LeakyRelu", "leaky", {"X"}, {"Y"});
  TempDir dir;
  auto m = load_model(save(b.model, dir.path.string(), "leaky.onnx"));
  ASSERT_TRUE(m.ok());
  std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 2, 4, 4}, 5)}};
  Outcome strict = run_platform("cuda", *m, feeds);
  ASSERT_FALSE(strict.status.ok());
  EXPECT_EQ(strict.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(strict.status.message().find("no cuDNN/cuBLAS mapping for LeakyRelu"),
            std::string::npos);
  Outcome fb = run_platform("cuda:fallback=ref", *m, feeds);
  ASSERT_TRUE(fb.status.ok()) << fb.status.to_string();
  EXPECT_EQ(fb.reports.at(0).second.note.rfind("fallback=ref: ", 0), 0u);
}

#else

TEST(CudaBackend, NotBuilt) {
  GTEST_SKIP() << "infergap was built without the cuda backend (no CUDA toolkit or cuDNN found)";
}

#endif

}  // namespace
}  // namespace ig::testing

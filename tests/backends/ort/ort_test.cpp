// The ort backend through real worker processes. Skips (saying why) when node.js or the
// onnxruntime-node package is missing; scripts/setup installs both.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "../../support/onnx_builder.h"
#include "backends/backend.h"
#include "inputs/random_input.h"
#include "model/onnx_model.h"
#include "residual_model.h"
#include "synth/graph_builder.h"
#include "worker/worker_pool.h"

namespace ig {
namespace {

using testing::TempDir;

class OrtTest : public ::testing::Test {
 protected:
  TempDir dir;
  std::string model;
  WorkerPool pool{WorkerPoolOptions{.worker_executable = INFERGAP_WORKER}};

  void SetUp() override {
    Status st = pool.start("ort:opt=disabled");
    if (st.code() == StatusCode::kUnsupported) GTEST_SKIP() << st.message();
    ASSERT_TRUE(st.ok()) << st.to_string();
    model = dir.file("residual.onnx");
    ASSERT_TRUE(save_model_proto(testing::ResidualModelBuilder().build(), model).ok());
  }
  RunRequest request(const std::string& platform, bool trace = true) const {
    RunRequest r;
    r.platform = platform;
    r.model_path = model;
    r.inputs = {{"x", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 42)}};
    r.capture.all_layers = trace;
    return r;
  }
};

// Relative to each element, but never to less than 1% of the tensor's largest magnitude: an
// output near zero comes from cancellation, where MLAS's per-CPU kernels (FMA3, AVX-512) leave
// errors of the size of the terms, not of the result.
double max_rel_error(const Tensor& a, const Tensor& ref) {
  double worst = 0, scale = 0;
  auto x = a.values<float>();
  auto y = ref.values<float>();
  for (float v : y) scale = std::max(scale, 1e-2 * std::abs(double(v)));
  const double floor = std::max(scale, 1e-30);
  for (size_t i = 0; i < x.size(); ++i)
    worst =
        std::max(worst, std::abs(double(x[i]) - y[i]) / std::max(floor, std::abs(double(y[i]))));
  return worst;
}

TEST_F(OrtTest, EveryLevelMatchesTheReferenceAndTracesEveryNode) {
  const RunResult ref = pool.run(request("ref"));
  ASSERT_EQ(ref.verdict, Verdict::kOk) << ref.reason;
  for (const char* level : {"disabled", "basic", "extended", "all"}) {
    const std::string platform = std::string("ort:opt=") + level;
    const RunResult r = pool.run(request(platform));
    ASSERT_EQ(r.verdict, Verdict::kOk) << platform << ": " << r.reason;
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].value, "logits");
    EXPECT_LT(max_rel_error(r.outputs[0].tensor, ref.outputs[0].tensor), 1e-4) << platform;
    // Values named like the reference's, in the same order: every node where nothing is fused,
    // the executed graph's values (fused groups at their last node) otherwise.
    if (std::string(level) == "disabled") {
      ASSERT_EQ(r.trace.size(), ref.trace.size());
    }
    ASSERT_LE(r.trace.size(), ref.trace.size()) << platform;
    size_t j = 0;
    for (const auto& t : r.trace) {
      while (j < ref.trace.size() && ref.trace[j].value != t.value) ++j;
      ASSERT_LT(j, ref.trace.size()) << platform << ": " << t.value << " out of order";
      EXPECT_EQ(t.shape, ref.trace[j].shape) << t.value;
      EXPECT_LT(max_rel_error(t.tensor, ref.trace[j].tensor), 1e-4) << platform << " " << t.value;
    }
  }
}

TEST_F(OrtTest, TracingNeverChangesTheGraphOutputs) {
  for (const char* level : {"disabled", "all"}) {
    const std::string platform = std::string("ort:opt=") + level;
    const RunResult traced = pool.run(request(platform, true));
    const RunResult plain = pool.run(request(platform, false));
    ASSERT_EQ(traced.verdict, Verdict::kOk) << traced.reason;
    ASSERT_EQ(plain.verdict, Verdict::kOk) << plain.reason;
    EXPECT_TRUE(plain.trace.empty());
    EXPECT_EQ(traced.outputs[0].hash, plain.outputs[0].hash) << platform;
  }
  // Without optimization the traced session computes the plain graph: its last traced value is
  // the output, bit for bit.
  const RunResult eager = pool.run(request("ort:opt=disabled"));
  EXPECT_EQ(eager.trace.back().value, "logits");
  EXPECT_EQ(eager.trace.back().hash, eager.outputs[0].hash);
}

// A traced run at opt=all is checked against a plain run on the first run of a model and input
// shapes and every 8th after it; the runs between take the executed graph's outputs and say so.
// Every one gives the plain run's bits; --verify-traces checks them all.
TEST_F(OrtTest, UncheckedTracedRunsSaySoAndGiveThePlainBits) {
  const RunResult plain = pool.run(request("ort:opt=all", false));
  ASSERT_EQ(plain.verdict, Verdict::kOk) << plain.reason;
  EXPECT_EQ(plain.outputs[0].note, "");
  for (bool verify : {false, true}) {
    RunRequest r = request("ort:opt=all");
    r.capture.verify_traces = verify;
    pool.restart("ort:opt=all");  // the count starts again with a fresh worker
    std::vector<bool> unchecked;
    for (int i = 0; i < kTraceCheckEvery + 2; ++i) {
      const RunResult traced = pool.run(r);
      ASSERT_EQ(traced.verdict, Verdict::kOk) << traced.reason;
      EXPECT_EQ(traced.outputs[0].hash, plain.outputs[0].hash) << "run " << i;
      EXPECT_FALSE(traced.trace.empty());
      unchecked.push_back(traced.outputs[0].note.find("not checked against a plain run") !=
                          std::string::npos);
    }
    std::vector<bool> expected(unchecked.size(), !verify);
    expected[0] = expected[kTraceCheckEvery] = false;
    EXPECT_EQ(unchecked, expected) << "verify_traces=" << verify;
  }
}

// ORT reads an input where it lies and its ReduceMean over 64 floats gives other bits for another
// address alignment; the runner once copied inputs into Node's Buffer pool, where the alignment
// depended on earlier requests, so one input gave different outputs from request to request.
TEST_F(OrtTest, AnInputGivesTheSameBitsWhateverRanBefore) {
  GraphBuilder b("mean", DType::kFloat32, 1, {});
  const std::string x = b.input("x", {64});
  const std::string mean = b.node("ReduceMean", {x}, "mean",
                                  {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{1}}});
  b.output(b.node("Sub", {x, mean}, "centred"), "y", {64});
  const std::string path = dir.file("mean.onnx");
  ASSERT_TRUE(save_model_proto(b.finish(), path).ok());
  // Rows far from zero, so that the summation order shows in the mean's last bits.
  Tensor in = random_uniform_tensor(DType::kFloat32, {4, 64}, 1);
  auto* v = in.data<float>();
  for (int64_t i = 0; i < in.numel(); ++i) v[i] += std::pow(10.0f, static_cast<float>(i / 64)) - 1;
  std::set<uint64_t> outputs;
  for (int i = 0; i < 8; ++i) {
    RunRequest r;
    r.platform = "ort:opt=disabled";
    r.model_path = path;
    r.inputs = {{"x", in}};
    r.capture.all_layers = i % 2 == 0;
    const RunResult res = pool.run(r);
    ASSERT_EQ(res.verdict, Verdict::kOk) << res.reason;
    outputs.insert(res.outputs[0].hash);
    // Another request in between moves whatever a pool of buffers would hand out next.
    ASSERT_EQ(pool.run(request("ort:opt=disabled", i % 3 == 0)).verdict, Verdict::kOk);
  }
  EXPECT_EQ(outputs.size(), 1u);
}

// Layer normalisation written out node by node: at opt=extended and above ORT fuses it into one
// LayerNormalization kernel; the trace takes it from the executed graph, as one fused group.
TEST_F(OrtTest, AFusedLayerNormIsTracedAsOneGroupWithTheOutputsBits) {
  GraphBuilder b("layer_norm", DType::kFloat32, 1, {});
  const std::string x = b.input("x", {64});
  const Attrs last_axis{{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{1}}};
  const std::string mean = b.node("ReduceMean", {x}, "mean", last_axis);
  const std::string d = b.node("Sub", {x, mean}, "d");
  const std::string var =
      b.node("ReduceMean", {b.node("Pow", {d, b.scalar("two", 2)}, "d2")}, "var", last_axis);
  const std::string sd = b.node("Sqrt", {b.node("Add", {var, b.scalar("eps", 1e-5)}, "ve")}, "sd");
  const std::string n = b.node("Div", {d, sd}, "n");
  const std::string y =
      b.add(b.mul(n, b.uniform("gamma", {64}, 0.5, 1.5)), b.uniform("beta", {64}, -1, 1));
  b.output(y, y, {64});
  const std::string path = dir.file("layer_norm.onnx");
  ASSERT_TRUE(save_model_proto(b.finish(), path).ok());
  Tensor in = random_uniform_tensor(DType::kFloat32, {4, 64}, 1);
  for (int64_t i = 0; i < in.numel(); ++i)
    in.data<float>()[i] += 100.0f * static_cast<float>(i / 64);
  for (const char* level : {"disabled", "all"}) {
    RunRequest r;
    r.platform = std::string("ort:opt=") + level;
    r.model_path = path;
    r.inputs = {{"x", in}};
    const RunResult res = pool.run(r);
    ASSERT_EQ(res.verdict, Verdict::kOk) << res.reason;
    ASSERT_EQ(res.outputs.size(), 1u);
    if (std::string(level) == "disabled") {
      EXPECT_EQ(res.outputs[0].covers, "") << "nothing fuses: the trace is the output";
      EXPECT_EQ(res.outputs[0].hash, res.trace.back().hash);
    } else {
      // The graph output is the group's value, bit for bit, and says which group made it.
      EXPECT_EQ(res.outputs[0].hash, res.trace.back().hash);
      EXPECT_EQ(res.outputs[0].covers, "mean,d,d2,var,ve,sd,n,mul,add");
      EXPECT_EQ(res.trace.back().covers, "mean,d,d2,var,ve,sd,n,mul,add");
      EXPECT_NE(res.trace.back().note.find("LayerNormalization"), std::string::npos)
          << res.trace.back().note;
    }
  }
}

TEST_F(OrtTest, OptionsAreCheckedAndUnknownOpsAreUnsupportedWithOrtsMessage) {
  Status bad = pool.start("ort:opt=fast");
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      bad.message().find("opt=fast is not valid (valid values: disabled, basic, extended, all)"),
      std::string::npos)
      << bad.message();
  EXPECT_EQ(pool.start("ort:threads=0").code(), StatusCode::kInvalidArgument);

  // A custom-domain op ORT has no kernel for.
  const onnx::ModelProto m = testing::custom_op_model();
  const std::string custom = dir.file("custom.onnx");
  ASSERT_TRUE(save_model_proto(m, custom).ok());
  RunRequest r;
  r.platform = "ort:opt=disabled";
  r.model_path = custom;
  r.inputs = {{"X", Tensor::from_vector<float>({1, -1}, {2})}};
  const RunResult res = pool.run(r);
  EXPECT_EQ(res.verdict, Verdict::kUnsupported) << res.reason;
  EXPECT_NE(res.reason.find("Frobnicate"), std::string::npos) << res.reason;
}

}  // namespace
}  // namespace ig

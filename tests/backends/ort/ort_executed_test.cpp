// The ort backend's per-layer capture from the graph ORT executes (ort_executed_graph.h): on a
// model where ORT fuses (Conv+BN+Relu, QDQ -> QLinearConv, MatMul+Add -> Gemm), every level's
// traced run keeps the plain run's output bits, and each traced value is the one the optimized
// run computed, named with the fused group it closes. Skips where node.js or onnxruntime-node is
// missing.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "../../support/onnx_builder.h"
#include "core/float16.h"
#include "inputs/random_input.h"
#include "model/onnx_model.h"
#include "synth/graph_builder.h"
#include "synth/quantize_model.h"
#include "worker/worker_pool.h"

namespace ig {
namespace {

using testing::TempDir;

// Conv+BN+Relu, then a QDQ convolution (uint8 activations, int8 weights), then pooling and a
// MatMul+Add classifier.
onnx::ModelProto fusing_model() {
  GraphBuilder b("fusing", DType::kFloat32, 7, WeightInit{});
  const std::string x = b.input("x", {16, 12, 12});
  const std::string r =
      b.activation(b.batch_norm(b.conv(x, 16, 32, 3, 1, 1), 32), Activation::kRelu);
  const std::string xs = b.scalar("x_scale", 0.05);
  const std::string xz = b.constant("x_zero", Tensor::from_vector<uint8_t>({128}, {}));
  const std::string q = b.node("QuantizeLinear", {r, xs, xz}, "q_in");
  const std::string dq = b.node("DequantizeLinear", {q, xs, xz}, "dq_in");
  std::vector<int8_t> w(32 * 32 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>((i * 37 % 101) - 50);
  const std::string wq = b.constant("w_q", Tensor::from_vector<int8_t>(w, {32, 32, 3, 3}));
  const std::string ws = b.scalar("w_scale", 0.004);
  const std::string wz = b.constant("w_zero", Tensor::from_vector<int8_t>({0}, {}));
  const std::string dqw = b.node("DequantizeLinear", {wq, ws, wz}, "dq_w");
  const std::string c2 =
      b.node("Conv", {dq, dqw}, "qconv", {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  const std::string ys = b.scalar("y_scale", 0.1);
  const std::string yz = b.constant("y_zero", Tensor::from_vector<uint8_t>({128}, {}));
  const std::string q2 = b.node("QuantizeLinear", {c2, ys, yz}, "q_out");
  const std::string dq2 = b.node("DequantizeLinear", {q2, ys, yz}, "dq_out");
  const std::string y = b.linear(b.flatten(b.global_avg_pool(dq2)), 32, 10);
  b.output(y, y, {10});
  return b.finish();
}

class OrtExecutedTest : public ::testing::Test {
 protected:
  TempDir dir;
  std::string model;
  std::map<std::string, std::string> op_of;  // node name -> op type
  WorkerPool pool{WorkerPoolOptions{.worker_executable = INFERGAP_WORKER}};

  void SetUp() override {
    Status st = pool.start("ort:opt=disabled");
    if (st.code() == StatusCode::kUnsupported) GTEST_SKIP() << st.message();
    ASSERT_TRUE(st.ok()) << st.to_string();
    model = dir.file("fusing.onnx");
    const onnx::ModelProto m = fusing_model();
    for (const auto& n : m.graph().node()) op_of[n.name()] = n.op_type();
    ASSERT_TRUE(save_model_proto(m, model).ok());
  }
  RunResult run(const std::string& platform, bool trace = true, Shape x = {1, 16, 12, 12},
                uint64_t seed = 3) {
    RunRequest r;
    r.platform = platform;
    r.model_path = model;
    r.inputs = {{"x", random_uniform_tensor(DType::kFloat32, x, seed)}};
    r.capture.all_layers = trace;
    return pool.run(r);
  }
  // A small residual net quantized by `infergap quantize`, traced on ORT optimized: each traced
  // value is one integer kernel's group and equals ref:qdq=int's. Returns the traced notes.
  std::vector<std::string> integer_kernels_traced(bool signed_activations);
  // The op types a traced value's fused group covers, in order.
  std::string covered_ops(const TracedTensor& t) const {
    std::string ops;
    size_t start = 0;
    while (start < t.covers.size()) {
      const size_t comma = std::min(t.covers.find(',', start), t.covers.size());
      const auto it = op_of.find(t.covers.substr(start, comma - start));
      ops += (ops.empty() ? "" : ",") + (it == op_of.end() ? "?" : it->second);
      start = comma + 1;
    }
    return ops;
  }
};

const TracedTensor* traced_by(const RunResult& r, const std::string& op_type) {
  for (const auto& t : r.trace)
    if (t.op_type == op_type) return &t;
  return nullptr;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double worst = 0;
  auto x = a.values<float>();
  auto y = b.values<float>();
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(double(x[i]) - y[i]));
  return worst;
}

TEST_F(OrtExecutedTest, FusedGroupsAreTracedFromTheExecutedGraphWithThePlainOutputs) {
  const RunResult eager = run("ort:opt=disabled");
  ASSERT_EQ(eager.verdict, Verdict::kOk) << eager.reason;
  for (const char* level : {"basic", "extended", "all"}) {
    SCOPED_TRACE(level);
    const std::string platform = std::string("ort:opt=") + level;
    const RunResult traced = run(platform);
    const RunResult plain = run(platform, false);
    ASSERT_EQ(traced.verdict, Verdict::kOk) << traced.reason;
    ASSERT_EQ(plain.verdict, Verdict::kOk) << plain.reason;
    EXPECT_EQ(traced.outputs[0].hash, plain.outputs[0].hash);
    for (const auto& t : traced.trace)
      EXPECT_EQ(t.note.find("unfused copy"), std::string::npos) << t.value << ": " << t.note;
    if (std::string(level) == "basic") continue;  // fuses BN into Conv only
    // Conv+BN+Relu: one FusedConv (extended) or NCHWc Conv (all), traced at the Relu.
    const TracedTensor* relu = traced_by(traced, "Relu");
    ASSERT_NE(relu, nullptr);
    EXPECT_EQ(covered_ops(*relu), "Conv,BatchNormalization,Relu");
    EXPECT_NE(relu->note.find("Conv"), std::string::npos) << relu->note;
    EXPECT_EQ(traced_by(traced, "Conv"), nullptr) << "the Conv's own output is fused away";
    // The values are the executed graph's, in NCHW: close to the eager run's, not equal to them
    // where ORT computed another way.
    const TracedTensor* eager_relu = traced_by(eager, "Relu");
    ASSERT_NE(eager_relu, nullptr);
    EXPECT_EQ(relu->shape, eager_relu->shape);
    EXPECT_LT(max_abs_diff(relu->tensor, eager_relu->tensor), 1e-3);
    // DQ -> Conv -> Q runs as one QLinearConv, traced at the QuantizeLinear.
    const TracedTensor* q_out = nullptr;
    for (const auto& t : traced.trace)
      if (t.node.rfind("q_out", 0) == 0) q_out = &t;
    ASSERT_NE(q_out, nullptr);
    EXPECT_NE(q_out->note.find("QLinearConv"), std::string::npos) << q_out->note;
    // The weights' DequantizeLinear reads constants only: ORT folds it at load, no group has it.
    EXPECT_EQ(covered_ops(*q_out), "DequantizeLinear,Conv,QuantizeLinear");
    // MatMul + Add -> Gemm, traced at the Add (the graph output).
    const TracedTensor* add = &traced.trace.back();
    EXPECT_EQ(add->op_type, "Add");
    EXPECT_EQ(covered_ops(*add), "MatMul,Add");
    EXPECT_NE(add->note.find("Gemm"), std::string::npos) << add->note;
    EXPECT_EQ(add->hash, traced.outputs[0].hash);
  }
}

// Under a trace budget smaller than one layer's values, the executed graph is run once per chunk
// of nodes, its weights (over 1 KiB) read from the data file ORT saved beside its optimized
// graph: every traced value keeps its bits, none falls back to the unfused copy, and nothing is
// left beside the model.
TEST_F(OrtExecutedTest, ChunkedRunsWithExternalWeightsTraceTheSameBits) {
  RunRequest budgeted;
  budgeted.platform = "ort:opt=all";
  budgeted.model_path = model;
  budgeted.inputs = {{"x", random_uniform_tensor(DType::kFloat32, {1, 16, 12, 12}, 3)}};
  budgeted.capture.all_layers = true;
  budgeted.trace_budget_bytes = 4096;  // each layer's value is 18 KiB: one node per run
  const RunResult chunked = pool.run(budgeted);
  pool.restart("ort:opt=all");
  const RunResult whole = run("ort:opt=all");
  ASSERT_EQ(chunked.verdict, Verdict::kOk) << chunked.reason;
  ASSERT_EQ(whole.verdict, Verdict::kOk) << whole.reason;
  EXPECT_EQ(chunked.outputs[0].hash, whole.outputs[0].hash);
  ASSERT_EQ(chunked.trace.size(), whole.trace.size());
  ASSERT_GT(chunked.trace.size(), 3u);
  for (size_t i = 0; i < whole.trace.size(); ++i) {
    EXPECT_EQ(chunked.trace[i].value, whole.trace[i].value);
    EXPECT_EQ(chunked.trace[i].hash, whole.trace[i].hash) << whole.trace[i].value;
    EXPECT_EQ(chunked.trace[i].note.find("unfused copy"), std::string::npos)
        << chunked.trace[i].note;
  }
  size_t files = 0;
  for (const auto& f :
       std::filesystem::directory_iterator(std::filesystem::path(model).parent_path()))
    files += f.path().filename().string().rfind(".infergap-ort", 0) == 0 ? 1 : 0;
  EXPECT_EQ(files, 0u);
}

// DeepWeeds-R50v2's stem: a zero Pad that ORT folds into the MaxPool's -inf padding, then a
// pre-activation BatchNormalization + Relu that its NCHWc transformer runs as a depthwise Conv.
TEST_F(OrtExecutedTest, APadFoldedIntoMaxPoolShowsWhereItChangedTheValues) {
  GraphBuilder b("stem", DType::kFloat32, 5, WeightInit{});
  const std::string x = b.input("x", {3, 16, 16});
  const std::string c = b.conv(x, 3, 16, 3, 1, 1);
  const std::string padded = b.node("Pad", {c, b.int64s("pads", {0, 0, 1, 1, 0, 0, 1, 1})}, "pad");
  const std::string pooled = b.node(
      "MaxPool", {padded}, "pool",
      {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"strides", std::vector<int64_t>{2, 2}}});
  const std::string r = b.activation(b.batch_norm(pooled, 16), Activation::kRelu);
  const std::string y = b.conv(r, 16, 16, 1, 1, 0);
  b.output(y, y, {16, 8, 8});
  model = dir.file("stem.onnx");
  const onnx::ModelProto m = b.finish();
  op_of.clear();
  for (const auto& n : m.graph().node()) op_of[n.name()] = n.op_type();
  ASSERT_TRUE(save_model_proto(m, model).ok());
  const RunResult eager = run("ort:opt=disabled", true, {1, 3, 16, 16}, 9);
  const RunResult all = run("ort:opt=all", true, {1, 3, 16, 16}, 9);
  ASSERT_EQ(eager.verdict, Verdict::kOk) << eager.reason;
  ASSERT_EQ(all.verdict, Verdict::kOk) << all.reason;
  const TracedTensor* folded = traced_by(all, "MaxPool");
  ASSERT_NE(folded, nullptr);
  EXPECT_EQ(covered_ops(*folded), "Pad,MaxPool");
  // The Conv's output has negative windows on the border: zero padding and -inf padding differ
  // there, and only there the executed graph's MaxPool is off the eager one.
  const TracedTensor* eager_pool = traced_by(eager, "MaxPool");
  ASSERT_NE(eager_pool, nullptr);
  EXPECT_GT(max_abs_diff(folded->tensor, eager_pool->tensor), 1e-2);
  const TracedTensor* relu = traced_by(all, "Relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(covered_ops(*relu), "BatchNormalization,Relu");
  EXPECT_NE(relu->note.find("nchwc.Conv"), std::string::npos) << relu->note;
}

// A float16 model: ORT's CPU has no half-precision Conv or Gemm, so it computes them in float32
// between Casts it inserts and removes the Casts between two such nodes: values the model
// declares float16 are never rounded. They are traced (before: none but the graph output),
// rounded to float16 where they are exposed, and each says that ORT kept it in float32.
TEST_F(OrtExecutedTest, HalfPrecisionValuesOrtKeepsInFloat32AreTracedAndSaySo) {
  GraphBuilder b("half", DType::kFloat16, 11, WeightInit{});
  const std::string x = b.input("x", {3, 8, 8});
  const std::string r1 = b.activation(b.conv(x, 3, 8, 3, 1, 1), Activation::kRelu);
  const std::string r2 = b.activation(b.conv(r1, 8, 8, 3, 1, 1), Activation::kRelu);
  const std::string y = b.linear(b.flatten(b.global_avg_pool(r2)), 8, 4);
  b.output(y, y, {4});
  model = dir.file("half.onnx");
  const onnx::ModelProto m = b.finish();
  op_of.clear();
  for (const auto& n : m.graph().node()) op_of[n.name()] = n.op_type();
  ASSERT_TRUE(save_model_proto(m, model).ok());
  RunRequest r;
  r.model_path = model;
  r.inputs = {{"x", random_uniform_tensor(DType::kFloat16, {1, 3, 8, 8}, 4)}};
  r.capture.all_layers = true;
  r.platform = "ort:opt=all";
  const RunResult all = pool.run(r);
  r.platform = "ort:opt=disabled";
  const RunResult eager = pool.run(r);
  r.platform = "ort:opt=all";
  r.capture.all_layers = false;
  const RunResult plain = pool.run(r);
  ASSERT_EQ(all.verdict, Verdict::kOk) << all.reason;
  ASSERT_EQ(eager.verdict, Verdict::kOk) << eager.reason;
  ASSERT_EQ(plain.verdict, Verdict::kOk) << plain.reason;
  EXPECT_EQ(all.outputs[0].hash, plain.outputs[0].hash);
  size_t relus = 0;
  for (const auto& t : all.trace) {
    EXPECT_EQ(t.note.find("unfused copy"), std::string::npos) << t.value << ": " << t.note;
    if (t.op_type != "Relu") continue;
    ++relus;
    EXPECT_EQ(t.tensor.dtype(), DType::kFloat16) << t.value;
    EXPECT_EQ(covered_ops(t), "Conv,Relu") << t.value;
    EXPECT_NE(t.note.find("in float32, never rounded to the model's float16"), std::string::npos)
        << t.value << ": " << t.note;
  }
  EXPECT_EQ(relus, 2u);
  // The first Relu reads only the input: ORT's float32 result rounded once, as opt=disabled
  // rounds it, so the two agree to float16's precision.
  const TracedTensor* eager_relu = traced_by(eager, "Relu");
  const TracedTensor* first = traced_by(all, "Relu");
  ASSERT_NE(eager_relu, nullptr);
  ASSERT_NE(first, nullptr);
  auto a = first->tensor.values<Float16>();
  auto e = eager_relu->tensor.values<Float16>();
  ASSERT_EQ(a.size(), e.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(double(float(a[i])) - double(float(e[i]))));
  EXPECT_LT(worst, 1e-2);
}

}  // namespace
}  // namespace ig

namespace ig {
namespace {

// A residual block with a MaxPool, quantized by `infergap quantize` (ONNX Runtime's QDQ layout:
// QDQ around Conv, Add, MaxPool, Gemm). ORT runs it on NHWC integers (QLinearConv, NhwcMaxPool,
// QLinearAdd, QGemm): every group is traced from that run, and each traced value equals
// ref:qdq=int's (exact int32 sums, float requantization) bit for bit on this CPU's MLAS.
TEST_F(OrtExecutedTest, IntegerKernelsOfAQuantizedModelAreTracedAndMatchTheEmulator) {
  for (const auto& note : integer_kernels_traced(false))
    EXPECT_EQ(note.find("QDQS8ToU8"), std::string::npos) << note;
}

// ORT's x86 QDQS8ToU8 runs s8 activations as u8 with the zero point + 128: the trace shows them
// shifted back, as the model's int8 values, and says so.
TEST_F(OrtExecutedTest, SignedActivationsOrtHoldsAsU8AreTracedAsTheModelsInt8) {
  size_t shifted = 0;
  for (const auto& note : integer_kernels_traced(true))
    shifted += note.find("held as u8 with the zero point + 128 (ORT's QDQS8ToU8), shown as int8") !=
               std::string::npos;
  EXPECT_GE(shifted, 3u);
}

std::vector<std::string> OrtExecutedTest::integer_kernels_traced(bool signed_activations) {
  GraphBuilder b("qres", DType::kFloat32, 5, WeightInit{});
  const std::string x = b.input("x", {8, 10, 10});
  const std::string stem = b.activation(b.conv(x, 8, 16, 3, 1, 1), Activation::kRelu);
  const std::string pooled = b.pool(stem, PoolKind::kMax, 2, 2);
  const std::string branch =
      b.conv(b.activation(b.conv(pooled, 16, 16, 3, 1, 1), Activation::kRelu), 16, 16, 3, 1, 1);
  const std::string sum = b.activation(b.add(branch, pooled), Activation::kRelu);
  const std::string y = b.dense(b.flatten(b.global_avg_pool(sum)), 16, 10);
  b.output(y, y, {10});
  QuantizeOptions options;
  options.samples = 2;
  options.signed_activations = signed_activations;
  auto q = quantize_model(b.finish(), options);
  std::vector<std::string> notes;
  EXPECT_TRUE(q.ok()) << q.status().to_string();
  if (!q.ok()) return notes;
  model = dir.file("qres.onnx");
  EXPECT_TRUE(save_model_proto(q->model, model).ok());
  op_of.clear();
  for (const auto& n : q->model.graph().node()) op_of[n.name()] = n.op_type();

  const RunResult ort = run("ort:opt=all", true, {1, 8, 10, 10});
  const RunResult emulated = run("ref:qdq=int", true, {1, 8, 10, 10});
  EXPECT_EQ(ort.verdict, Verdict::kOk) << ort.reason;
  EXPECT_EQ(emulated.verdict, Verdict::kOk) << emulated.reason;
  if (ort.verdict != Verdict::kOk || emulated.verdict != Verdict::kOk) return notes;
  std::map<std::string, uint64_t> ref_hash;
  for (const auto& t : emulated.trace) ref_hash[t.value] = t.hash;
  std::set<std::string> covered;
  size_t compared = 0;
  for (const auto& t : ort.trace) {
    covered.insert(t.op_type);
    size_t members = 0;
    for (size_t start = 0; start < t.covers.size(); ++members) {
      const size_t comma = std::min(t.covers.find(',', start), t.covers.size());
      covered.insert(op_of[t.covers.substr(start, comma - start)]);
      start = comma + 1;
    }
    // One kernel's group: DequantizeLinear(s), the op, a Relu, the QuantizeLinear.
    EXPECT_LE(members, 6u) << t.value << " covers " << t.covers;
    notes.push_back(t.note);
    auto it = ref_hash.find(t.value);
    if (it == ref_hash.end()) continue;
    ++compared;
    EXPECT_EQ(t.hash, it->second) << t.value << " (" << t.note << ")";
  }
  // The MaxPool between the QLinearConvs is traced (alone or closing a group), not swallowed by
  // one group with the rest.
  EXPECT_TRUE(covered.count("MaxPool")) << "no traced group covers the MaxPool";
  EXPECT_TRUE(covered.count("Add"));
  EXPECT_GE(compared, 5u);
  EXPECT_EQ(ort.outputs[0].hash, emulated.outputs[0].hash);
  return notes;
}

}  // namespace
}  // namespace ig

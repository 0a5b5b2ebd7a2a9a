#include "worker/worker_pool.h"

#include <gtest/gtest.h>

#include "../support/onnx_builder.h"
#include "worker/probe.h"

namespace ig {
namespace {

using testing::TempDir;

class WorkerPoolTest : public ::testing::Test {
 protected:
  TempDir dir;
  std::string model;
  WorkerPool pool{WorkerPoolOptions{.worker_executable = INFERGAP_WORKER}};

  void SetUp() override {
    model = dir.file("cnn.onnx");
    ASSERT_TRUE(write_probe_model(model).ok());
  }
  RunRequest request(const std::string& platform, double timeout = 60) const {
    RunRequest r;
    r.platform = platform;
    r.model_path = model;
    r.inputs = probe_inputs();
    r.timeout_seconds = timeout;
    return r;
  }
};

void expect_same(const TracedTensor& a, const TracedTensor& b) {
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.node, b.node);
  EXPECT_EQ(a.op_type, b.op_type);
  EXPECT_EQ(a.node_index, b.node_index);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_TRUE(a.tensor.bitwise_equal(b.tensor)) << a.value;
}

TEST_F(WorkerPoolTest, RefThroughAWorkerIsBitIdenticalToInProcess) {
  const RunResult local = run_in_process(request("ref"));
  const RunResult remote = pool.run(request("ref"));
  ASSERT_EQ(local.verdict, Verdict::kOk) << local.reason;
  ASSERT_EQ(remote.verdict, Verdict::kOk) << remote.reason;
  ASSERT_EQ(remote.outputs.size(), 1u);
  expect_same(remote.outputs[0], local.outputs[0]);
  ASSERT_EQ(remote.trace.size(), 3u);  // conv1, relu1, conv2, streamed in order
  ASSERT_EQ(local.trace.size(), 3u);
  for (size_t i = 0; i < 3; ++i) expect_same(remote.trace[i], local.trace[i]);
  EXPECT_EQ(remote.trace[1].op_type, "Relu");
  // The worker names the graph output's producer (the coordinator keeps no model to do it).
  EXPECT_EQ(remote.outputs[0].node, remote.trace[2].node);
  EXPECT_EQ(remote.outputs[0].op_type, "Conv");
  EXPECT_EQ(remote.outputs[0].node_index, 2);
  // Sent once: the output arrived as a reference to the streamed layer, the same tensor.
  EXPECT_TRUE(remote.outputs[0].tensor.bitwise_equal(remote.trace[2].tensor));
}

TEST_F(WorkerPoolTest, RefusedNodesComeBackAsRecordsNotJustText) {
  const onnx::ModelProto m = testing::custom_op_model();
  const std::string custom = dir.file("custom.onnx");
  ASSERT_TRUE(save_model_proto(m, custom).ok());
  RunRequest r = request("ref");
  r.model_path = custom;
  r.inputs = {{"X", Tensor::from_vector<float>({1, -1}, {2})}};
  const RunResult res = pool.run(r);
  ASSERT_EQ(res.verdict, Verdict::kUnsupported) << res.reason;
  ASSERT_EQ(res.rejections.size(), 1u);
  EXPECT_EQ(res.rejections[0].node, "relu0");
  EXPECT_EQ(res.rejections[0].op_type, "Frobnicate");
  EXPECT_EQ(res.rejections[0].node_index, 0);
  EXPECT_EQ(res.rejections[0].reason, res.reason);
  EXPECT_NE(res.reason.find("Frobnicate"), std::string::npos) << res.reason;
}

TEST_F(WorkerPoolTest, AWorkerServesManyJobs) {
  ASSERT_EQ(pool.run(request("ref")).verdict, Verdict::kOk);
  const int pid = pool.worker_pid("ref");
  EXPECT_GT(pid, 0);
  auto no_trace = request("ref");
  no_trace.capture.all_layers = false;
  const RunResult again = pool.run(no_trace);
  EXPECT_EQ(again.verdict, Verdict::kOk);
  EXPECT_TRUE(again.trace.empty());
  EXPECT_EQ(pool.worker_pid("ref"), pid);
}

TEST_F(WorkerPoolTest, HashOnlyCaptureStreamsEveryLayerWithoutTensors) {
  auto req = request("ref");
  req.capture.keep_tensors = false;
  const RunResult hashes = pool.run(req);
  ASSERT_EQ(hashes.verdict, Verdict::kOk) << hashes.reason;
  const RunResult full = pool.run(request("ref"));
  ASSERT_EQ(hashes.trace.size(), full.trace.size());
  ASSERT_FALSE(hashes.trace.empty());
  for (size_t i = 0; i < hashes.trace.size(); ++i) {
    EXPECT_FALSE(hashes.trace[i].tensor.defined());
    EXPECT_EQ(hashes.trace[i].hash, full.trace[i].hash);
    EXPECT_EQ(hashes.trace[i].shape, full.trace[i].shape);
  }
}

TEST_F(WorkerPoolTest, RestartGivesTheNextJobAFreshProcessWithTheSameBits) {
  const RunResult first = pool.run(request("ref:acc=lanes8"));
  ASSERT_EQ(first.verdict, Verdict::kOk);
  const int pid = pool.worker_pid("ref:acc=lanes8");
  pool.restart("ref:acc=lanes8");
  EXPECT_EQ(pool.worker_pid("ref:acc=lanes8"), -1);
  const RunResult second = pool.run(request("ref:acc=lanes8"));
  ASSERT_EQ(second.verdict, Verdict::kOk);
  EXPECT_NE(pool.worker_pid("ref:acc=lanes8"), pid);
  EXPECT_EQ(second.outputs[0].hash, first.outputs[0].hash);
}

TEST_F(WorkerPoolTest, SignalsBecomeCrashVerdictsAndTheWorkerIsRestarted) {
  for (const auto& [sig, name] : std::vector<std::pair<std::string, std::string>>{
           {"SEGV", "SIGSEGV"}, {"ILL", "SIGILL"}, {"ABRT", "SIGABRT"}}) {
    const std::string platform = "crashtest:signal=" + sig;
    const RunResult r = pool.run(request(platform));
    EXPECT_EQ(r.verdict, Verdict::kCrash) << platform;
    EXPECT_EQ(r.reason.rfind(name + ": ", 0), 0u) << r.reason;
    EXPECT_NE(r.reason.find("after node 'conv1'"), std::string::npos) << r.reason;
    // The first node's output was streamed before the worker died.
    ASSERT_EQ(r.trace.size(), 1u);
    EXPECT_EQ(r.trace[0].value, "c1");
    EXPECT_EQ(r.repro, "infergap run " + model + " -p '" + platform + "'");
    EXPECT_EQ(pool.worker_pid(platform), -1);
  }
  // Other platforms in the same pool are untouched, and a crashed platform gets a fresh worker.
  EXPECT_EQ(pool.run(request("ref")).verdict, Verdict::kOk);
  EXPECT_EQ(pool.run(request("crashtest:signal=SEGV")).verdict, Verdict::kCrash);
}

TEST_F(WorkerPoolTest, HangsBecomeTimeoutsAndTheNextJobGetsAFreshWorker) {
  const RunResult r = pool.run(request("crashtest:signal=hang", 0.5));
  EXPECT_EQ(r.verdict, Verdict::kTimeout);
  EXPECT_NE(r.reason.find("no result within 0.5 s"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("the worker was killed"), std::string::npos) << r.reason;
  EXPECT_EQ(pool.worker_pid("crashtest:signal=hang"), -1);
  // crashtest without a signal computes like ref: the same bits.
  const RunResult ok = pool.run(request("crashtest"));
  ASSERT_EQ(ok.verdict, Verdict::kOk) << ok.reason;
  EXPECT_EQ(ok.outputs[0].hash, pool.run(request("ref")).outputs[0].hash);
}

TEST_F(WorkerPoolTest, EnvironmentIsAppliedBeforeLibrariesLoad) {
  // load=ILL travels as an environment variable that a load-time constructor reads: it can only
  // fire if the worker re-exec'd itself with the platform's environment.
  const RunResult r = pool.run(request("crashtest:load=ILL"));
  EXPECT_EQ(r.verdict, Verdict::kCrash);
  EXPECT_EQ(r.reason.rfind("SIGILL: ", 0), 0u) << r.reason;
  EXPECT_NE(r.reason.find("while starting"), std::string::npos) << r.reason;
  EXPECT_EQ(pool.start("crashtest:load=ILL").code(), StatusCode::kInternal);
}

TEST_F(WorkerPoolTest, BadSpecsAreErrorsFromTheWorkersRegistry) {
  Status st = pool.start("tpu:fast=yes");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("unknown backend 'tpu'"), std::string::npos) << st.message();
  const RunResult r = pool.run(request("crashtest:signal=KILL"));
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.reason.find("signal=KILL is not one of"), std::string::npos) << r.reason;
}

TEST(WorkerPoolMissing, AMissingWorkerExecutableIsAClearError) {
  WorkerPool pool{WorkerPoolOptions{.worker_executable = "/nonexistent/infergap-worker"}};
  const Status st = pool.start("ref");
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  EXPECT_NE(st.message().find("/nonexistent/infergap-worker"), std::string::npos);
}

}  // namespace
}  // namespace ig

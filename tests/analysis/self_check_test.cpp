// The self-check (study/self_check.h, analysis/self_check/verdict.h) with real re-runs in real
// workers. A suspect fusion needs a fusion that produces a gross error, and the one oneDNN had
// (SE-block gating, fixed in 1ddf83b) is gone; so the seam is the stored trace: the platform's
// run is a real reference run whose last value is replaced by what a broken fused group would
// trace, namely the same Conv + Relu computed with one output channel's weights doubled, marked
// as covering both nodes (or, for the adapter case, as Relu's alone with Conv traced correctly).
// Everything after the store is the real thing: the plan, the re-runs, the verdicts.
#include <gtest/gtest.h>

#include <cmath>

#include "../support/onnx_builder.h"
#include "analysis/oracle/origins.h"
#include "analysis/self_check/plan.h"
#include "inputs/random_input.h"
#include "model/npy.h"
#include "model/tensor_proto.h"
#include "study/study.h"
#include "synth/graph_builder.h"
#include "tensor/hash.h"
#include "worker/host_fingerprint.h"
#include "worker/probe.h"

namespace ig {
namespace {

using testing::TempDir;

// x[1,4,8,8] -> Conv 3x3 (4 -> 4) -> Relu.
onnx::ModelProto conv_relu(bool broken) {
  GraphBuilder b("conv_relu", DType::kFloat32, 7, {});
  const std::string x = b.input("x", {4, 8, 8});
  const std::string conv = b.conv(x, 4, 4, 3, 1, 1);
  const std::string relu = b.activation(conv, Activation::kRelu);
  b.output(relu, relu, {4, 8, 8});
  onnx::ModelProto m = b.finish();
  if (broken) {
    // The first output channel's 36 weights doubled: that channel's outputs are off by 100%.
    for (auto& init : *m.mutable_graph()->mutable_initializer()) {
      if (init.dims_size() != 4) continue;
      auto w = tensor_from_proto(init);
      EXPECT_TRUE(w.ok());
      for (int i = 0; i < 36; ++i) w->data<float>()[i] *= 2;
      const std::string name = init.name();
      init.Clear();
      tensor_to_proto(*w, name, &init);
    }
  }
  return m;
}

RunResult run_ref(const std::string& spec, const std::string& path,
                  const std::map<std::string, Tensor>& feeds) {
  RunRequest req;
  req.platform = spec;
  req.model_path = path;
  req.inputs = feeds;
  RunResult r = run_in_process(req);
  EXPECT_EQ(r.verdict, Verdict::kOk) << r.reason;
  return r;
}

class SelfCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = dir_.file("conv_relu.onnx");
    ASSERT_TRUE(save_model_proto(conv_relu(false), model_).ok());
    broken_ = dir_.file("broken.onnx");
    ASSERT_TRUE(save_model_proto(conv_relu(true), broken_).ok());
    auto store = Store::open(dir_.file("s.db"));
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    host_ = probe_host("self-check-test");
    ASSERT_TRUE(store_->put_host({host_.id, host_.json}).ok());
    auto m = register_model(*store_, model_);
    ASSERT_TRUE(m.ok()) << m.status().message();
    model_hash_ = m->hash;
    auto in = register_input(*store_, m->model, {}, 3);
    ASSERT_TRUE(in.ok());
    input_ = *in;
    ASSERT_TRUE(store_->put_platform(kOracle, host_.id, true).ok());
    ASSERT_TRUE(store_->put_platform("ref", host_.id).ok());
    put(kOracle, run_ref(kOracle, model_, input_.feeds));
  }

  void put(const std::string& spec, const RunResult& r) {
    auto put = store_->put_run({model_hash_, input_.hash, spec, host_.id, 0}, r);
    ASSERT_TRUE(put.ok() && *put);
  }

  // The platform run with its Relu output replaced by the broken model's; `fused`: Conv's output
  // untraced and Relu's covering both, as oneDNN traces a Conv with a Relu post-op.
  void put_simulated_platform(bool fused) {
    RunResult r = run_ref("ref", model_, input_.feeds);
    const RunResult bad = run_ref("ref", broken_, input_.feeds);
    ASSERT_EQ(r.trace.size(), 2u);
    TracedTensor relu = bad.trace[1];
    if (fused) {
      relu.covers = r.trace[0].node + "," + r.trace[1].node;
      relu.note = "fused: simulated broken fusion";
      r.trace.erase(r.trace.begin());
    } else {
      r.trace[1] = relu;
    }
    r.outputs[0] = relu;
    put("ref", r);
  }

  // Plans and runs the self-check in real workers, then reads the origins back.
  std::vector<OracleOrigin> check() {
    auto study = load_study(*store_);
    EXPECT_TRUE(study.ok()) << study.status().message();
    TensorCache cache(study->load);
    auto requests = self_check_requests(*study, cache, host_.id);
    EXPECT_TRUE(requests.ok());
    EXPECT_EQ(requests->size(), 1u);
    WorkerPool pool(WorkerPoolOptions{.worker_executable = INFERGAP_WORKER});
    auto catalog = read_catalog(INFERGAP_WORKER);
    EXPECT_TRUE(catalog.ok()) << catalog.status().message();
    auto done = run_self_checks(*store_, pool, *catalog, *requests, {});
    EXPECT_TRUE(done.ok()) << done.status().message();
    EXPECT_EQ(done->executed, 2);
    auto again = run_self_checks(*store_, pool, *catalog, *requests, {});
    EXPECT_EQ(again->executed, 0);  // stored: a rerun of the study does not repeat them
    EXPECT_EQ(again->skipped, 2);
    study = load_study(*store_);
    TensorCache fresh(study->load);
    auto origins = oracle_origins(*study, fresh);
    EXPECT_TRUE(origins.ok()) << origins.status().message();
    return *origins;
  }

  static constexpr const char* kOracle = "ref:acc=exact,dtype=fp64";
  TempDir dir_;
  std::string model_, broken_, model_hash_;
  std::unique_ptr<Store> store_;
  HostFingerprint host_;
  InputEntry input_;
};

TEST_F(SelfCheck, AGrossErrorThatVanishesUnfusedIsSuspectFusion) {
  put_simulated_platform(/*fused=*/true);
  const auto origins = check();
  ASSERT_EQ(origins.size(), 1u);
  const OracleOrigin& o = origins[0];
  EXPECT_EQ(o.platform, "ref");
  EXPECT_EQ(o.span.op_type, "Relu");
  EXPECT_TRUE(o.span.fused);
  EXPECT_EQ(o.span.covers.size(), 2u);  // the fused group: Conv and Relu
  EXPECT_EQ(o.span.input_error, 0);     // only the graph input enters the group
  EXPECT_GT(o.span.output_error, 0.1);
  EXPECT_EQ(o.self_check.verdict, SelfCheckVerdict::kSuspectFusion) << o.self_check.reason;
  EXPECT_EQ(o.self_check.unfused_spec, "ref");
  EXPECT_LT(o.self_check.unfused_error, 1e-5);
  EXPECT_GT(o.self_check.local_error, 0.1);
  const auto j = oracle_origin_json(o);
  EXPECT_EQ(j["self_check"]["verdict"], "suspect-fusion");
}

TEST_F(SelfCheck, AGrossErrorOfAnUnfusedNodeThatVanishesAloneIsSuspectAdapter) {
  put_simulated_platform(/*fused=*/false);
  const auto origins = check();
  ASSERT_EQ(origins.size(), 1u);
  const OracleOrigin& o = origins[0];
  EXPECT_EQ(o.span.op_type, "Relu");
  EXPECT_FALSE(o.span.fused);
  EXPECT_EQ(o.span.covers.size(), 1u);
  EXPECT_LT(o.span.input_error, 1e-6);  // Conv was traced as computed
  EXPECT_EQ(o.self_check.verdict, SelfCheckVerdict::kSuspectAdapter) << o.self_check.reason;
}

TEST_F(SelfCheck, WithoutStoredReRunsTheVerdictSaysSo) {
  put_simulated_platform(/*fused=*/true);
  auto study = load_study(*store_);
  ASSERT_TRUE(study.ok());
  TensorCache cache(study->load);
  auto origins = oracle_origins(*study, cache);
  ASSERT_TRUE(origins.ok());
  ASSERT_EQ(origins->size(), 1u);
  EXPECT_EQ((*origins)[0].self_check.verdict, SelfCheckVerdict::kNotRun);
}

// x[4,64] around 1e6 -> ReduceMean -> Sub: fp32 rounds the mean to 1/16, and the differences of
// about 0.5 inherit that error whole; the reference's Sub itself is exact (Sterbenz).
TEST(SelfCheckConditioning, AnOpThatAmplifiesItsInputsErrorIsIllConditioned) {
  TempDir dir;
  GraphBuilder b("centre", DType::kFloat32, 1, {});
  const std::string x = b.input("x", {64});
  const std::string mean = b.node("ReduceMean", {x}, "mean",
                                  {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{1}}});
  const std::string centred = b.node("Sub", {x, mean}, "centred");
  b.output(centred, centred, {64});
  const std::string model = dir.file("centre.onnx");
  ASSERT_TRUE(save_model_proto(b.finish(), model).ok());
  Tensor in = random_uniform_tensor(DType::kFloat32, {4, 64}, 5);
  for (int64_t i = 0; i < in.numel(); ++i) in.data<float>()[i] += 1e6f;
  const std::string npy = dir.file("x.npy");
  ASSERT_TRUE(write_npy(in, npy).ok());

  auto store = Store::open(dir.file("s.db"));
  ASSERT_TRUE(store.ok());
  WorkerPool pool(WorkerPoolOptions{.worker_executable = INFERGAP_WORKER});
  StudyOptions opt;
  opt.models = {model};
  opt.input_files = {"x=" + npy};
  opt.platforms = {"ref"};
  opt.oracle = default_oracle();
  auto summary = run_study(**store, pool, opt, nullptr);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  auto study = load_study(**store);
  ASSERT_TRUE(study.ok());
  TensorCache cache(study->load);
  auto requests = self_check_requests(*study, cache, summary->host);
  ASSERT_TRUE(requests.ok());
  ASSERT_EQ(requests->size(), 1u);
  EXPECT_EQ((*requests)[0].value, centred);
  auto catalog = read_catalog(INFERGAP_WORKER);
  ASSERT_TRUE(catalog.ok());
  ASSERT_TRUE(run_self_checks(**store, pool, *catalog, *requests, {}).ok());
  study = load_study(**store);
  TensorCache fresh(study->load);
  auto origins = oracle_origins(*study, fresh);
  ASSERT_TRUE(origins.ok());
  ASSERT_FALSE(origins->empty());
  const OracleOrigin& o = (*origins)[0];
  EXPECT_EQ(o.span.op_type, "Sub");
  EXPECT_GT(o.span.output_error, kGrossError);
  EXPECT_LT(o.span.input_error, kInputsAgree);
  EXPECT_EQ(o.self_check.verdict, SelfCheckVerdict::kIllConditioned) << o.self_check.reason;
  EXPECT_EQ(o.self_check.local_error, 0);  // the exact Sub of the platform's inputs: its output
}

}  // namespace
}  // namespace ig

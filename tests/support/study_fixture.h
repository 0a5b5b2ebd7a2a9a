// Test helper: a study store whose platforms are real runs of the mini residual CNN, each
// "platform" computing one operator slightly differently (one weight of that operator with a
// flipped bit), recorded under the unmodified model's key. The traces are real computations with
// controlled bit differences: the difference is born at the chosen operator and propagates.
#pragma once

#include <gtest/gtest.h>

#include <bit>

#include <string>
#include <vector>

#include "mini_resnet.h"
#include "study/study.h"
#include "worker/host_fingerprint.h"

namespace ig::testing {

struct SimPlatform {
  std::string label;        // stored as the platform spec
  std::string initializer;  // "" for the unmodified model
  int element = 0;
  uint32_t flip = 0;  // xor on the element's fp32 bits
};

// Writes the variant models and a store with every platform on `inputs` seeded input sets.
inline std::string build_sim_store(const TempDir& dir, const std::vector<SimPlatform>& platforms,
                                   int inputs, std::vector<RunResult>* results = nullptr) {
  const std::string base = write_model(mini_resnet(), dir.file("mini_resnet.onnx"));
  const std::string db = dir.file("sim.db");
  auto store = Store::open(db);
  EXPECT_TRUE(store.ok()) << store.status().message();
  const HostFingerprint host = probe_host("sim");
  EXPECT_TRUE((*store)->put_host({host.id, host.json}).ok());
  auto model = register_model(**store, base);
  EXPECT_TRUE(model.ok()) << model.status().message();
  for (int s = 0; s < inputs; ++s) {
    auto in = register_input(**store, model->model, {}, static_cast<uint64_t>(s));
    EXPECT_TRUE(in.ok()) << in.status().message();
    for (const auto& p : platforms) {
      EXPECT_TRUE((*store)->put_platform(p.label, host.id).ok());
      onnx::ModelProto m = mini_resnet();
      for (auto& init : *m.mutable_graph()->mutable_initializer()) {
        if (init.name() != p.initializer) continue;
        const float v = init.float_data(p.element);
        init.set_float_data(p.element, std::bit_cast<float>(std::bit_cast<uint32_t>(v) ^ p.flip));
      }
      RunRequest req;
      req.platform = "ref";
      req.model_path = write_model(m, dir.file("variant.onnx"));
      req.inputs = in->feeds;
      RunResult r = run_in_process(req);
      EXPECT_EQ(r.verdict, Verdict::kOk) << r.reason;
      for (auto& o : r.outputs) {  // as run_study files graph outputs under their producer
        o.node = "fc";
        o.op_type = "Gemm";
        o.node_index = static_cast<int64_t>(model->model.graph.nodes.size()) - 1;
      }
      auto put = (*store)->put_run({model->hash, in->hash, p.label, host.id, 0}, r);
      EXPECT_TRUE(put.ok() && *put);
      if (results) results->push_back(std::move(r));
    }
  }
  return db;
}

}  // namespace ig::testing

// Squeeze-excitation and gating blocks (EfficientNet, MobileNetV3, RegNetY, SENet): a gate
// [1,C,1,1] computed by a small convolution scales x [1,C,H,W]. The scaling node widens the
// gate's shape, so it must never become a post-op of the gate's convolution (which computes only
// C elements): oneDNN then returned a [1,C,1,1] "product" and EfficientNet-B0 was 100 % wrong.
#include "backend_test_util.h"

namespace ig::testing {
namespace {

// x -> GAP -> Conv(C->4) -> Relu -> Conv(4->C) -> gate activation -> op(x, gate) or op(gate, x).
onnx::ModelProto gating_block(const std::string& gate_op, const std::string& combine,
                              bool x_first) {
  const int64_t c = 8, hw = 6;
  GraphBuilder b;
  b.io(true, "X", {1, c, hw, hw});
  b.io(false, "Y", {1, c, hw, hw});
  b.node("GlobalAveragePool", "squeeze", {"X"}, {"pooled"});
  b.node("Conv", "reduce",
         {"pooled", b.weight("w1", {4, c, 1, 1}, 0.5f), b.weight("b1", {4}, 0.1f)}, {"r"});
  b.node("Relu", "relu", {"r"}, {"rr"});
  b.node("Conv", "expand", {"rr", b.weight("w2", {c, 4, 1, 1}, 0.5f), b.weight("b2", {c}, 0.1f)},
         {"e"});
  b.node(gate_op, "gate", {"e"}, {"g"});
  b.node(combine, "scale",
         x_first ? std::vector<std::string>{"X", "g"} : std::vector<std::string>{"g", "X"}, {"Y"});
  return b.model;
}

struct Case {
  std::string gate, combine;
  bool x_first;
};

TEST(OnednnGating, WideningNodeIsNeverFusedIntoTheGate) {
  const std::vector<Case> cases = {{"Sigmoid", "Mul", true},
                                   {"Sigmoid", "Mul", false},
                                   {"Tanh", "Mul", true},
                                   {"Sigmoid", "Add", false}};
  TempDir dir;
  for (const Case& k : cases) {
    const std::string label = k.gate + "/" + k.combine + (k.x_first ? "(x,g)" : "(g,x)");
    auto model = load_model(
        save(gating_block(k.gate, k.combine, k.x_first), dir.path.string(), "gate.onnx"));
    ASSERT_TRUE(model.ok()) << model.status().to_string();
    // Without declared shapes the plan cannot see the widening: the check on real shapes must.
    Model undeclared = *model;
    undeclared.graph.value_info.clear();
    const std::map<std::string, Tensor> feeds = {
        {"X", random_uniform_tensor(DType::kFloat32, {1, 8, 6, 6}, 3)}};
    const Outcome ref = run_platform("ref", *model, feeds);
    ASSERT_TRUE(ref.status.ok()) << ref.status.to_string();
    for (const Model* m : {&*model, &undeclared}) {
      for (const std::string spec : {"onednn", "onednn:fallback=ref"}) {
        const Outcome o = run_platform(spec, *m, feeds);
        ASSERT_TRUE(o.status.ok()) << label << " " << spec << ": " << o.status.to_string();
        ASSERT_EQ(o.outputs[0].tensor.shape(), (Shape{1, 8, 6, 6})) << label << " " << spec;
        EXPECT_LT(max_rel_error(o.outputs[0].tensor, ref.outputs[0].tensor), 1e-5)
            << label << " " << spec;
        for (const auto& [node, r] : o.reports) {
          EXPECT_EQ(r.covers.find("scale"), std::string::npos)
              << label << " " << node << " " << r.covers;
        }
      }
    }
  }
}

// The gate's own activation still fuses into its convolution: only the widening node stays out.
TEST(OnednnGating, GateActivationStillFuses) {
  TempDir dir;
  auto model = load_model(save(gating_block("Sigmoid", "Mul", true), dir.path.string(), "g.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Outcome o = run_platform("onednn", *model,
                                 {{"X", random_uniform_tensor(DType::kFloat32, {1, 8, 6, 6}, 3)}});
  ASSERT_TRUE(o.status.ok()) << o.status.to_string();
  std::map<std::string, std::string> covers;
  for (const auto& [node, r] : o.reports) covers[node] = r.covers;
  EXPECT_EQ(covers["gate"], "expand,gate");
  EXPECT_EQ(covers["relu"], "reduce,relu");
}

}  // namespace
}  // namespace ig::testing

#include "synth/mutate.h"

#include <gtest/gtest.h>

#include <cmath>

#include "backends/ref/ref_backend.h"
#include "inputs/random_input.h"
#include "inputs/rng.h"
#include "model/onnx_model.h"
#include "synth/mutate_util.h"
#include "synth/zoo.h"

namespace ig {
namespace {

onnx::ModelProto parent() {
  auto p = build_zoo_model("Cifar10-small", ZooOptions{});
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return *p;
}

Expected<Tensor> run_ref(onnx::ModelProto proto) {
  IG_ASSIGN_OR_RETURN(Model model, model_from_proto(proto, "variant", "", LoadOptions{}));
  RefBackend ref;
  IG_ASSIGN_OR_RETURN(
      auto outs,
      ref.run(model, {{"x", random_uniform_tensor(DType::kFloat32, Shape{1, 3, 32, 32}, 7)}},
              nullptr));
  return outs[0].tensor;
}

void expect_close(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(a.as_double(i), b.as_double(i), tol) << i;
}

TEST(MutatePads, PaddingMovedIntoAPadKeepsTheResultAndTheCheckerHappy) {
  const auto p = parent();
  const auto base = run_ref(p);
  ASSERT_TRUE(base.ok()) << base.status().to_string();
  Rng rng(1);
  const auto candidates = pad_split_candidates(p, rng);
  ASSERT_FALSE(candidates.empty());
  for (const auto& c : candidates) {
    onnx::ModelProto v = p;
    ASSERT_TRUE(apply_mutation(v, c).ok()) << c.to_string();
    EXPECT_TRUE(check_variant(v).ok()) << c.to_string();
    EXPECT_EQ(v.graph().node_size(), p.graph().node_size() + 1);
    auto node = node_index(v.graph(), c.params.at("node"));
    ASSERT_TRUE(node.ok());
    EXPECT_EQ(v.graph().node(*node - 1).op_type(), "Pad");  // right before it, reading its input
    for (const auto& a : v.graph().node(*node).attribute()) EXPECT_NE(a.name(), "pads");
    auto out = run_ref(v);
    ASSERT_TRUE(out.ok()) << c.to_string() << ": " << out.status().to_string();
    expect_close(*out, *base, 1e-6);
  }
  // What it cannot split says why; a made-up pad value is refused.
  onnx::ModelProto v = p;
  std::string relu;
  for (const auto& n : p.graph().node())
    if (n.op_type() == "Relu") relu = n.name();
  auto st = apply_mutation(v, {"padsplit", {{"node", relu}, {"value", "0"}}});
  EXPECT_NE(st.message().find("not a Conv, MaxPool or AveragePool"), std::string::npos)
      << st.to_string();
  st = apply_mutation(v, {"padsplit", {{"node", candidates[0].params.at("node")}, {"value", "5"}}});
  EXPECT_NE(st.message().find("value must be 0 or -inf"), std::string::npos) << st.to_string();
}

TEST(Mutate, SameSeedSameVariantsOtherSeedOthers) {
  const auto p = parent();
  const auto a = generate_variants(p, 6, 1);
  const auto b = generate_variants(p, 6, 1);
  const auto c = generate_variants(p, 6, 2);
  ASSERT_EQ(a.hashes.size(), 6u);
  EXPECT_EQ(a.hashes, b.hashes);
  EXPECT_NE(a.hashes, c.hashes);
}

TEST(Mutate, EveryVariantPassesTheCheckerRunsOnRefAndReplaysFromItsLineage) {
  const auto p = parent();
  const auto r = generate_variants(p, 12, 5);
  ASSERT_EQ(r.variants.size(), 12u);
  for (const auto& v : r.variants) {
    EXPECT_TRUE(check_model_proto(v).ok());
    auto out = run_ref(v);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    auto lineage = lineage_from_model(v);
    ASSERT_TRUE(lineage.ok()) << lineage.status().to_string();
    EXPECT_EQ(lineage->parent_hash, content_hash(p));
    EXPECT_FALSE(lineage->mutations.empty());
    auto again = replay_lineage(p, *lineage);
    ASSERT_TRUE(again.ok()) << again.status().to_string();
    EXPECT_EQ(content_hash(*again), content_hash(v));
  }
}

TEST(Mutate, SemanticsPreservingInsertionsKeepOutputsWithin1e5) {
  auto p = parent();
  auto base = run_ref(p);
  ASSERT_TRUE(base.ok()) << base.status().to_string();
  const std::string value = p.graph().node(0).output(0);  // the first Conv's output, rank 4
  for (const char* how : {"add0", "mul1", "identity", "transpose2"}) {
    onnx::ModelProto m = p;
    ASSERT_TRUE(apply_mutation(m, {"insert", {{"value", value}, {"how", how}}}).ok()) << how;
    ASSERT_TRUE(check_variant(m).ok()) << check_variant(m).to_string();
    EXPECT_EQ(m.graph().node_size(),
              p.graph().node_size() + (std::string(how) == "transpose2" ? 2 : 1));
    auto out = run_ref(m);
    ASSERT_TRUE(out.ok()) << how << ": " << out.status().to_string();
    expect_close(*out, *base, 1e-5);
  }
}

TEST(Mutate, DoubleCastKeepsTheInterfaceAndOutputs) {
  auto p = parent();
  auto base = run_ref(p);
  onnx::ModelProto m = p;
  ASSERT_TRUE(apply_mutation(m, {"cast", {{"to", "double"}}}).ok());
  ASSERT_TRUE(check_variant(m).ok()) << check_variant(m).to_string();
  for (const auto& t : m.graph().initializer())
    EXPECT_NE(t.data_type(), onnx::TensorProto::FLOAT) << t.name();
  auto out = run_ref(m);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(out->dtype(), DType::kFloat32);
  expect_close(*out, *base, 1e-5);
}

TEST(Mutate, SwapsAndReinitChangeWhatTheySay) {
  auto p = parent();
  onnx::ModelProto m = p;
  const auto& relu = p.graph().node(1);
  ASSERT_EQ(relu.op_type(), "Relu");
  ASSERT_TRUE(apply_mutation(m, {"activation", {{"node", relu.name()}, {"to", "Tanh"}}}).ok());
  EXPECT_EQ(m.graph().node(1).op_type(), "Tanh");
  const auto& pool = p.graph().node(2);
  ASSERT_EQ(pool.op_type(), "MaxPool");
  ASSERT_TRUE(apply_mutation(m, {"pool", {{"node", pool.name()}, {"to", "AveragePool"}}}).ok());
  EXPECT_EQ(m.graph().node(2).op_type(), "AveragePool");
  const std::string w = p.graph().initializer(0).name();
  Mutation re{"reinit", {{"init", w}, {"dist", "normal"}, {"a", "0"}, {"b", "0.5"}, {"seed", "3"}}};
  ASSERT_TRUE(apply_mutation(m, re).ok());
  EXPECT_NE(m.graph().initializer(0).SerializeAsString(),
            p.graph().initializer(0).SerializeAsString());
  EXPECT_TRUE(check_variant(m).ok());
  EXPECT_TRUE(run_ref(m).ok());
}

TEST(Mutate, BadMutationsAndTypeErrorsAreReported) {
  auto p = parent();
  onnx::ModelProto m = p;
  Status st = apply_mutation(m, {"activation", {{"node", "nope"}, {"to", "Tanh"}}});
  EXPECT_NE(st.message().find("no node named 'nope'"), std::string::npos) << st.to_string();
  // A double constant added to a float tensor passes the bare checker but not check_variant.
  auto* n = m.mutable_graph()->mutable_node(1);
  m.mutable_graph()->add_initializer()->CopyFrom(p.graph().initializer(0));
  auto* bad = m.mutable_graph()->mutable_initializer(m.graph().initializer_size() - 1);
  bad->set_name("bad64");
  bad->set_data_type(onnx::TensorProto::DOUBLE);
  bad->clear_float_data();
  bad->clear_raw_data();
  bad->clear_dims();
  bad->add_double_data(0.0);
  n->set_op_type("Add");
  n->add_input("bad64");
  EXPECT_FALSE(check_variant(m).ok());
}

}  // namespace
}  // namespace ig

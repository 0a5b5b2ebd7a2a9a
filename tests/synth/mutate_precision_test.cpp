// The reduced-precision mutations: a run of nodes in float16/bfloat16 between Casts (castspan),
// and the planner drawing it and the whole model in bfloat16.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/ref/ref_backend.h"
#include "inputs/random_input.h"
#include "model/onnx_model.h"
#include "synth/mutate.h"
#include "synth/zoo.h"

namespace ig::mutate_precision {
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

const onnx::NodeProto* node_named(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

// The Cast node producing `value`, or null.
const onnx::NodeProto* cast_producing(const onnx::GraphProto& g, const std::string& value) {
  for (const auto& n : g.node())
    if (n.op_type() == "Cast" && n.output(0) == value) return &n;
  return nullptr;
}

int64_t cast_to(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute())
    if (a.name() == "to") return a.i();
  return -1;
}

TEST(MutatePrecision, CastSpanPutsTheRunInFloat16BetweenCasts) {
  const auto p = parent();
  ASSERT_EQ(p.graph().node(1).name(), "relu");
  ASSERT_EQ(p.graph().node(2).name(), "maxpool");
  onnx::ModelProto m = p;
  const Mutation mut{"castspan", {{"to", "fp16"}, {"first", "relu"}, {"last", "maxpool"}}};
  ASSERT_TRUE(apply_mutation(m, mut).ok());
  ASSERT_TRUE(check_variant(m).ok()) << check_variant(m).to_string();
  const auto& g = m.graph();
  // relu reads conv's output through a Cast to float16; maxpool's output goes back to float32
  // before conv_1 reads it; conv and conv_1 themselves read no Cast of their own type change.
  const auto* relu = node_named(g, "relu");
  ASSERT_NE(relu, nullptr);
  const auto* in = cast_producing(g, relu->input(0));
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(cast_to(*in), onnx::TensorProto::FLOAT16);
  const auto* conv1 = node_named(g, "conv_1");
  ASSERT_NE(conv1, nullptr);
  const auto* back = cast_producing(g, conv1->input(0));
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(cast_to(*back), onnx::TensorProto::FLOAT);
  int casts = 0;
  for (const auto& n : g.node()) casts += n.op_type() == "Cast";
  EXPECT_EQ(casts, 2);
  EXPECT_EQ(g.node_size(), p.graph().node_size() + 2);
  // Relu and max pooling of values rounded to float16: close to the parent, not equal.
  auto a = run_ref(p), b = run_ref(m);
  ASSERT_TRUE(a.ok() && b.ok());
  double worst = 0;
  for (int64_t i = 0; i < a->numel(); ++i)
    worst = std::max(worst, std::abs(a->as_double(i) - b->as_double(i)));
  EXPECT_GT(worst, 0);
  EXPECT_LT(worst, 1e-2);
  // Deterministic: the same mutation, the same bytes.
  onnx::ModelProto again = p;
  ASSERT_TRUE(apply_mutation(again, mut).ok());
  EXPECT_EQ(content_hash(again), content_hash(m));
}

TEST(MutatePrecision, CastSpanErrorsNameTheNodes) {
  onnx::ModelProto m = parent();
  auto st = apply_mutation(m, {"castspan", {{"to", "fp16"}, {"first", "nope"}, {"last", "relu"}}});
  EXPECT_NE(st.message().find("no node 'nope'"), std::string::npos) << st.message();
  st = apply_mutation(m, {"castspan", {{"to", "fp16"}, {"first", "maxpool"}, {"last", "relu"}}});
  EXPECT_NE(st.message().find("'maxpool' comes after 'relu'"), std::string::npos) << st.message();
  st = apply_mutation(m, {"castspan", {{"to", "int4"}, {"first", "relu"}, {"last", "relu"}}});
  EXPECT_FALSE(st.ok());
}

TEST(MutatePrecision, ThePlannerDrawsCastSpansAndBfloat16Models) {
  const auto r = generate_variants(parent(), 120, 7);
  std::map<std::string, int> kinds;
  for (const auto& v : r.variants) {
    auto lineage = lineage_from_model(v);
    ASSERT_TRUE(lineage.ok());
    for (const auto& mut : lineage->mutations) {
      if (mut.kind == "castspan") ++kinds["castspan " + mut.params.at("to")];
      if (mut.kind == "convert") ++kinds["convert " + mut.params.at("to")];
    }
    EXPECT_TRUE(check_variant(v).ok());
  }
  EXPECT_GT(kinds["castspan fp16"], 0);
  EXPECT_GT(kinds["castspan bf16"], 0);
  EXPECT_GT(kinds["convert bf16"], 0);
}

}  // namespace
}  // namespace ig::mutate_precision

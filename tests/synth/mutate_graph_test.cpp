// The graph rewrites of mutate_graph.cpp: equal to the parent in exact arithmetic, so on ref
// within a few fp32 roundings (BatchNormalization) or bit for bit (pure data movement).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "backends/ref/ref_backend.h"
#include "inputs/random_input.h"
#include "inputs/rng.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "synth/zoo.h"

namespace ig {
namespace {

onnx::ModelProto zoo(const std::string& name) {
  auto p = build_zoo_model(name, ZooOptions{});
  EXPECT_TRUE(p.ok()) << p.status().to_string();
  return *p;
}

Expected<Tensor> run(onnx::ModelProto proto) {
  IG_ASSIGN_OR_RETURN(Model model, model_from_proto(proto, "variant", "", LoadOptions{}));
  RefBackend ref;
  IG_ASSIGN_OR_RETURN(
      auto outs,
      ref.run(model, {{"x", random_uniform_tensor(DType::kFloat32, Shape{1, 3, 32, 32}, 7)}},
              nullptr));
  return outs[0].tensor;
}

// The largest difference relative to the output's largest magnitude.
double relative_gap(const Tensor& a, const Tensor& b) {
  double gap = 0, scale = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    gap = std::max(gap, std::abs(a.as_double(i) - b.as_double(i)));
    scale = std::max(scale, std::abs(b.as_double(i)));
  }
  return gap / scale;
}

int count_op(const onnx::ModelProto& m, const std::string& op) {
  int n = 0;
  for (const auto& node : m.graph().node()) n += node.op_type() == op ? 1 : 0;
  return n;
}

std::string first_node(const onnx::ModelProto& m, const std::string& op) {
  for (const auto& node : m.graph().node())
    if (node.op_type() == op) return node.name();
  return "";
}

TEST(MutateGraph, BatchNormUnfoldedAndFoldedBackKeepsTheResult) {
  // Cifar10-small's Convs have no BatchNormalization: unfold one, then fold it back.
  const auto p = zoo("Cifar10-small");
  const auto base = run(p);
  ASSERT_TRUE(base.ok()) << base.status().to_string();
  onnx::ModelProto v = p;
  const std::string conv = first_node(p, "Conv");
  const Status st = apply_mutation(v, {"bnunfold", {{"node", conv}, {"seed", "3"}}});
  ASSERT_TRUE(st.ok()) << st.to_string();
  ASSERT_TRUE(check_variant(v).ok()) << check_variant(v).to_string();
  EXPECT_EQ(count_op(v, "BatchNormalization"), 1);
  EXPECT_EQ(v.graph().initializer_size(), p.graph().initializer_size() + 4);  // the statistics
  const auto unfolded = run(v);
  ASSERT_TRUE(unfolded.ok()) << unfolded.status().to_string();
  EXPECT_FALSE(unfolded->bitwise_equal(*base));  // the weights were rescaled and rounded
  EXPECT_LT(relative_gap(*unfolded, *base), 1e-5);

  onnx::ModelProto back = v;
  const Status fold =
      apply_mutation(back, {"bnfold", {{"node", first_node(v, "BatchNormalization")}}});
  ASSERT_TRUE(fold.ok()) << fold.to_string();
  ASSERT_TRUE(check_variant(back).ok()) << check_variant(back).to_string();
  EXPECT_EQ(count_op(back, "BatchNormalization"), 0);
  EXPECT_EQ(back.graph().initializer_size(), p.graph().initializer_size());
  const auto folded = run(back);
  ASSERT_TRUE(folded.ok()) << folded.status().to_string();
  EXPECT_LT(relative_gap(*folded, *base), 1e-5);
}

TEST(MutateGraph, EveryBatchNormOfATrainedLayoutFolds) {
  // VGG11's eight Conv -> BatchNormalization pairs, each folded alone.
  const auto p = zoo("VGG11");
  const auto base = run(p);
  ASSERT_TRUE(base.ok());
  Rng rng(1);
  const auto kinds = graph_rewrite_candidates(p, rng);
  ASSERT_EQ(kinds.size(), 3u);
  EXPECT_EQ(kinds[0].size(), 8u);  // every Conv can unfold
  ASSERT_EQ(kinds[1].size(), 8u);  // every BatchNormalization can fold
  for (const auto& m : kinds[1]) {
    onnx::ModelProto v = p;
    ASSERT_TRUE(apply_mutation(v, m).ok()) << m.to_string();
    ASSERT_TRUE(check_variant(v).ok()) << m.to_string();
    EXPECT_EQ(count_op(v, "BatchNormalization"), 7);
    const auto out = run(v);
    ASSERT_TRUE(out.ok()) << m.to_string();
    EXPECT_LT(relative_gap(*out, *base), 1e-5) << m.to_string();
  }
}

TEST(MutateGraph, ConstantSubgraphsAndCutsKeepEveryBit) {
  const auto p = zoo("Cifar10-small");
  const auto base = run(p);
  ASSERT_TRUE(base.ok());
  const std::string w = p.graph().node(0).input(1);  // the first Conv's weight, rank 4
  const std::string value = p.graph().node(0).output(0);
  const std::vector<Mutation> exact = {
      {"constsub", {{"init", w}, {"how", "transpose"}}},
      {"constsub", {{"init", w}, {"how", "scale2"}}},
      {"insert", {{"value", value}, {"how", "split2"}, {"axis", "1"}}},
      {"insert", {{"value", value}, {"how", "slice2"}, {"axis", "3"}}},
  };
  for (const auto& m : exact) {
    onnx::ModelProto v = p;
    const Status st = apply_mutation(v, m);
    ASSERT_TRUE(st.ok()) << st.to_string();
    ASSERT_TRUE(check_variant(v).ok()) << m.to_string() << ": " << check_variant(v).to_string();
    const auto out = run(v);
    ASSERT_TRUE(out.ok()) << m.to_string() << ": " << out.status().to_string();
    EXPECT_TRUE(out->bitwise_equal(*base)) << m.to_string();
  }
}

TEST(MutateGraph, WhatCannotBeRewrittenSaysWhy) {
  auto p = zoo("Cifar10-small");
  const std::string relu = first_node(p, "Relu");
  const auto message = [&](const Mutation& m) {
    onnx::ModelProto v = p;
    return apply_mutation(v, m).to_string();
  };
  EXPECT_NE(message({"bnunfold", {{"node", relu}, {"seed", "1"}}}).find("not a Conv"),
            std::string::npos);
  EXPECT_NE(message({"bnfold", {{"node", relu}}}).find("not a BatchNormalization"),
            std::string::npos);
  EXPECT_NE(message({"insert",
                     {{"value", p.graph().node(0).output(0)}, {"how", "split2"}, {"axis", "0"}}})
                .find("cannot cut"),
            std::string::npos);
  EXPECT_NE(message({"constsub", {{"init", "nothing"}, {"how", "scale2"}}}).find("no initializer"),
            std::string::npos);
  // A subnormal weight cannot be halved exactly.
  auto* w = p.mutable_graph()->mutable_initializer(0);
  auto t = tensor_from_proto(*w);
  ASSERT_TRUE(t.ok());
  t->data<float>()[0] = 1e-39f;
  tensor_to_proto(*t, w->name(), w);
  EXPECT_NE(message({"constsub", {{"init", w->name()}, {"how", "scale2"}}})
                .find("does not halve exactly"),
            std::string::npos);
}

TEST(MutateGraph, ThePlannerDrawsEveryRewrite) {
  const auto p = zoo("Cifar10-small");
  const auto r = generate_variants(p, 60, 4);
  std::set<std::string> seen;
  for (const auto& v : r.variants) {
    auto lineage = lineage_from_model(v);
    ASSERT_TRUE(lineage.ok());
    for (const auto& m : lineage->mutations)
      seen.insert(m.kind == "insert" ? "insert/" + m.params.at("how") : m.kind);
  }
  for (const char* kind : {"bnunfold", "constsub", "insert/split2", "insert/slice2"})
    EXPECT_TRUE(seen.count(kind)) << kind;
}

}  // namespace
}  // namespace ig

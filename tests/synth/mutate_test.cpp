#include "synth/mutate.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "backends/ref/ref_backend.h"
#include "inputs/random_input.h"
#include "inputs/rng.h"
#include "inputs/variant_inputs.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"
#include "synth/mutate_util.h"
#include "synth/quantize_util.h"
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

// Cifar10-small with its first MaxPool made 3x3 with padding 1 (same output size): a Relu feeds
// a padded MaxPool, as in torchvision's ResNets.
onnx::ModelProto relu_fed_padded_max_pool() {
  onnx::ModelProto p = parent();
  for (auto& n : *p.mutable_graph()->mutable_node()) {
    if (n.op_type() != "MaxPool") continue;
    for (auto& a : *n.mutable_attribute()) {
      if (a.name() == "kernel_shape") a.mutable_ints()->Set(0, 3), a.mutable_ints()->Set(1, 3);
      if (a.name() == "pads")
        for (int k = 0; k < 4; ++k) a.mutable_ints()->Set(k, 1);
    }
    break;
  }
  return p;
}

TEST(MutatePads, AZeroPadBeforeAReluFedMaxPoolIsFollowedByAnActivationWithNegatives) {
  const onnx::ModelProto p = relu_fed_padded_max_pool();
  ASSERT_TRUE(check_variant(p).ok()) << check_variant(p).to_string();
  int followed = 0;
  for (uint64_t seed = 0; seed < 400 && followed < 2; ++seed) {
    auto v = make_variant(p, seed);
    if (!v.ok()) continue;  // a planned mutation that does not apply, as generate_variants counts
    auto lineage = lineage_from_model(*v);
    ASSERT_TRUE(lineage.ok());
    const auto& muts = lineage->mutations;
    for (size_t k = 0; k < muts.size(); ++k) {
      if (muts[k].kind != "padsplit" || muts[k].params.at("value") != "0") continue;
      auto pool = node_index(v->graph(), muts[k].params.at("node"));
      ASSERT_TRUE(pool.ok());
      if (v->graph().node(*pool).op_type() != "MaxPool") continue;
      ++followed;
      // The next mutation swaps the Relu before the Pad for an activation with negative values.
      ASSERT_LT(k + 1, muts.size()) << seed;
      EXPECT_EQ(muts[k + 1].kind, "activation") << seed;
      const std::string to = muts[k + 1].params.at("to");
      EXPECT_TRUE(to == "LeakyRelu" || to == "Elu" || to == "Selu" || to == "Tanh" ||
                  to == "Softsign")
          << to;
      const auto& pad = v->graph().node(*pool - 1);
      EXPECT_EQ(pad.op_type(), "Pad");
      auto act = node_index(v->graph(), muts[k + 1].params.at("node"));
      ASSERT_TRUE(act.ok());
      EXPECT_EQ(v->graph().node(*act).output(0), pad.input(0));
      EXPECT_EQ(v->graph().node(*act).op_type(), to);
      EXPECT_TRUE(check_variant(*v).ok());
      auto again = replay_lineage(p, *lineage);
      ASSERT_TRUE(again.ok());
      EXPECT_EQ(content_hash(*again), content_hash(*v));
    }
  }
  EXPECT_EQ(followed, 2) << "no seed split the MaxPool's padding with zeros";
}

// One node of `op` on x: float[2,3,4,5] at `opset`, with `extra` initializers as its later inputs.
onnx::ModelProto one_node_model(const std::string& op, int64_t opset,
                                std::vector<std::pair<std::string, Tensor>> extra = {},
                                std::vector<onnx::AttributeProto> attrs = {}) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (const char* name : {"x", "y"}) {
    auto* v = std::string(name) == "x" ? g->add_input() : g->add_output();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : {2, 3, 4, 5}) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name("n");
  n->add_input("x");
  for (auto& [name, t] : extra) {
    n->add_input(name);
    tensor_to_proto(t, name, g->add_initializer());
  }
  n->add_output("y");
  for (auto& a : attrs) *n->add_attribute() = a;
  return m;
}

onnx::AttributeProto int_attribute(const std::string& name, int64_t v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}

onnx::AttributeProto string_attribute(const std::string& name, const std::string& v) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::STRING);
  a.set_s(v);
  return a;
}

Expected<Tensor> run_ref_on(onnx::ModelProto proto, const Tensor& x) {
  IG_ASSIGN_OR_RETURN(Model model, model_from_proto(proto, "variant", "", LoadOptions{}));
  RefBackend ref;
  IG_ASSIGN_OR_RETURN(auto outs, ref.run(model, {{"x", x}}, nullptr));
  return outs[0].tensor;
}

TEST(MutateDecompose, EachOperatorAsItsPrimitivesGivesItsResult) {
  const onnx::AttributeProto tanh_form = string_attribute("approximate", "tanh");
  const onnx::AttributeProto axis1 = int_attribute("axis", 1);
  const Tensor scale = random_uniform_tensor(DType::kFloat32, Shape{4, 5}, 3);
  const Tensor bias = random_uniform_tensor(DType::kFloat32, Shape{4, 5}, 4);
  struct Case {
    std::string op;
    onnx::ModelProto model;
    size_t primitives;  // nodes in its place
  };
  const std::vector<Case> cases = {
      {"Softmax", one_node_model("Softmax", 13), 5},
      {"Softmax axis 1, opset 18", one_node_model("Softmax", 18, {}, {axis1}), 5},
      {"HardSwish", one_node_model("HardSwish", 14), 2},
      {"Gelu", one_node_model("Gelu", 20), 5},
      {"Gelu tanh", one_node_model("Gelu", 20, {}, {tanh_form}), 9},
      {"LayerNormalization",
       one_node_model("LayerNormalization", 17, {{"s", scale}, {"b", bias}}, {axis1}), 9}};
  // Inputs spread over [-4, 4]: HardSwish's and Gelu's bends, Softmax's range.
  Tensor x = random_uniform_tensor(DType::kFloat32, Shape{2, 3, 4, 5}, 9);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = 8 * x.data<float>()[i] - 4;
  for (const auto& c : cases) {
    onnx::ModelProto v = c.model;
    const Status st = apply_mutation(v, {"decompose", {{"node", "n"}}});
    ASSERT_TRUE(st.ok()) << c.op << ": " << st.to_string();
    EXPECT_TRUE(check_variant(v).ok()) << c.op << ": " << check_variant(v).to_string();
    EXPECT_EQ(static_cast<size_t>(v.graph().node_size()), c.primitives) << c.op;
    for (const auto& n : v.graph().node())
      EXPECT_NE(n.op_type(), c.model.graph().node(0).op_type());
    auto want = run_ref_on(c.model, x), got = run_ref_on(v, x);
    ASSERT_TRUE(want.ok() && got.ok()) << c.op;
    expect_close(*got, *want, 1e-5);
  }
  // A node it does not know, named with the reason.
  onnx::ModelProto relu = one_node_model("Relu", 13);
  const Status st = apply_mutation(relu, {"decompose", {{"node", "n"}}});
  EXPECT_NE(st.message().find("not Softmax, HardSwish, Gelu or LayerNormalization"),
            std::string::npos)
      << st.to_string();
}

// The model at ai.onnx `opset` as it is (the caller knows its nodes exist there).
void set_opset(onnx::ModelProto& m, int64_t opset) {
  for (auto& o : *m.mutable_opset_import())
    if (o.domain().empty()) o.set_version(opset);
}

// Node `name`'s op type, or "" when the model has none of that name.
std::string op_of(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& n : m.graph().node())
    if (n.name() == name) return n.op_type();
  return "";
}

TEST(MutateFuse, PrimitivesAtAnOlderOpsetFuseIntoTheOperatorAndKeepTheResult) {
  const onnx::AttributeProto axis1 = int_attribute("axis", 1);
  const onnx::AttributeProto tanh_form = string_attribute("approximate", "tanh");
  // Scale and bias of the normalized dims' shape, as LayerNormalization-17 takes them (ONNX
  // Runtime refuses a broadcast one).
  const Tensor scale = random_uniform_tensor(DType::kFloat32, Shape{3, 4, 5}, 3);
  const Tensor bias = random_uniform_tensor(DType::kFloat32, Shape{3, 4, 5}, 4);
  struct Case {
    std::string what;
    onnx::ModelProto fused;
    int64_t opset;     // the operator's
    bool pow = false;  // the square as Pow(c, 2), as torch writes it
  };
  const std::vector<Case> cases = {
      {"HardSwish", one_node_model("HardSwish", 14), 14},
      {"LayerNormalization, Mul square",
       one_node_model("LayerNormalization", 17, {{"s", scale}, {"b", bias}}, {axis1}), 17},
      {"LayerNormalization, Pow square",
       one_node_model("LayerNormalization", 17, {{"s", scale}, {"b", bias}}, {axis1}), 17, true},
      // Raised past libonnx's opset 17 by hand (synth/raise_opset.h); the forms differ by up to
      // 1e-3, so the result tells which approximation the fused node has.
      {"Gelu, erf form", one_node_model("Gelu", 20), 20},
      {"Gelu, tanh form", one_node_model("Gelu", 20, {}, {tanh_form}), 20}};
  Tensor x = random_uniform_tensor(DType::kFloat32, Shape{2, 3, 4, 5}, 9);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = 8 * x.data<float>()[i] - 4;
  for (const auto& c : cases) {
    // The primitives at opset 13, where the operator does not exist yet.
    onnx::ModelProto parts = c.fused;
    ASSERT_TRUE(apply_mutation(parts, {"decompose", {{"node", "n"}}}).ok()) << c.what;
    if (c.pow) {
      for (auto& n : *parts.mutable_graph()->mutable_node()) {
        if (n.op_type() != "Mul" || n.input(0) != n.input(1)) continue;
        n.set_op_type("Pow");
        add_scalar_initializer(*parts.mutable_graph(), "two", onnx::TensorProto::FLOAT, 2.0);
        n.set_input(1, "two");
      }
    }
    set_opset(parts, 13);
    ASSERT_TRUE(check_variant(parts).ok()) << c.what << ": " << check_variant(parts).to_string();
    const std::string last = parts.graph().node(parts.graph().node_size() - 1).name();
    Rng rng(1);
    // The last node; with a bias, its Mul by the scale too (a LayerNormalization without B).
    std::vector<std::string> ends;
    for (const auto& m : fuse_candidates(parts, rng)) ends.push_back(m.params.at("node"));
    ASSERT_FALSE(ends.empty()) << c.what;
    EXPECT_EQ(ends.back(), last) << c.what;
    EXPECT_EQ(ends.size(), c.opset == 17 ? 2u : 1u) << c.what;

    onnx::ModelProto v = parts;
    const Status st = apply_mutation(v, {"fuse", {{"node", last}}});
    ASSERT_TRUE(st.ok()) << c.what << ": " << st.to_string();
    EXPECT_TRUE(check_variant(v).ok()) << c.what << ": " << check_variant(v).to_string();
    EXPECT_EQ(default_opset(v), c.opset) << c.what;
    ASSERT_EQ(v.graph().node_size(), 1) << c.what;
    EXPECT_EQ(op_of(v, last), c.fused.graph().node(0).op_type()) << c.what;
    auto want = run_ref_on(parts, x), got = run_ref_on(v, x);
    ASSERT_TRUE(want.ok() && got.ok()) << c.what;
    expect_close(*got, *want, 1e-5);
  }
  // Not the end of such primitives: the reason says what it looks for.
  onnx::ModelProto relu = one_node_model("Relu", 13);
  const Status st = apply_mutation(relu, {"fuse", {{"node", "n"}}});
  EXPECT_NE(st.message().find("'n' ends no x * HardSigmoid, LayerNorm or GELU primitives"),
            std::string::npos)
      << st.to_string();
}

TEST(MutateFuse, GeluRaisesTheModelPastLibonnxAndCarriesReduceAxesOver) {
  // LayerNorm primitives (ReduceMean with an axes attribute, as before opset 18) feeding GELU's.
  const Tensor scale = random_uniform_tensor(DType::kFloat32, Shape{3, 4, 5}, 3);
  const Tensor bias = random_uniform_tensor(DType::kFloat32, Shape{3, 4, 5}, 4);
  const onnx::AttributeProto axis1 = int_attribute("axis", 1);
  onnx::ModelProto m =
      one_node_model("LayerNormalization", 17, {{"s", scale}, {"b", bias}}, {axis1});
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_output(0, "ln");
  auto* gelu = g->add_node();
  gelu->set_op_type("Gelu");
  gelu->set_name("g");
  gelu->add_input("ln");
  gelu->add_output("y");
  // GELU's primitives first (Gelu exists at 20); LayerNorm's at 13, where ReduceMean has axes.
  set_opset(m, 20);
  ASSERT_TRUE(apply_mutation(m, {"decompose", {{"node", "g"}}}).ok());
  set_opset(m, 13);
  const Status parts = apply_mutation(m, {"decompose", {{"node", "n"}}});
  ASSERT_TRUE(parts.ok()) << parts.to_string();
  ASSERT_TRUE(check_variant(m).ok()) << check_variant(m).to_string();
  const std::string last = m.graph().node(m.graph().node_size() - 1).name();
  onnx::ModelProto v = m;
  const Status st = apply_mutation(v, {"fuse", {{"node", last}}});
  ASSERT_TRUE(st.ok()) << st.to_string();
  EXPECT_EQ(default_opset(v), 20);
  EXPECT_GE(v.ir_version(), 9);
  EXPECT_EQ(op_of(v, last), "Gelu");
  int reduces = 0;
  for (const auto& n : v.graph().node()) {
    if (n.op_type() != "ReduceMean") continue;
    ++reduces;
    EXPECT_EQ(n.input_size(), 2) << n.name();
    for (const auto& a : n.attribute()) EXPECT_NE(a.name(), "axes") << n.name();
  }
  EXPECT_EQ(reduces, 2);
  EXPECT_TRUE(check_variant(v).ok()) << check_variant(v).to_string();
  Tensor x = random_uniform_tensor(DType::kFloat32, Shape{2, 3, 4, 5}, 9);
  auto want = run_ref_on(m, x), got = run_ref_on(v, x);
  ASSERT_TRUE(want.ok() && got.ok());
  expect_close(*got, *want, 1e-5);
  // The variant's checker is the onnx package's full one: an int64 input fails its inference.
  onnx::ModelProto bad = v;
  for (auto& in : *bad.mutable_graph()->mutable_input())
    in.mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  EXPECT_NE(check_variant(bad).message().find("ShapeInferenceError"), std::string::npos)
      << check_variant(bad).to_string();
}

TEST(MutateEdge, InputsOfTailedOperatorsAreDrawnFromTheirEdgeRange) {
  onnx::ModelProto sigmoid = one_node_model("Sigmoid", 13);
  set_variant_inputs(sigmoid, {{"x", "file:inputs/captured.pb"}});
  Rng rng(3);
  const auto candidates = edge_candidates(sigmoid, rng);
  ASSERT_EQ(candidates.size(), 1u);
  const Mutation& m = candidates[0];
  EXPECT_EQ(m.params.at("input"), "x");
  bool known_range = false;
  for (const EdgeRange& r : edge_ranges().at("Sigmoid"))
    known_range |= m.params.at("lo") == fmt::format("{}", r.lo);
  EXPECT_TRUE(known_range) << m.to_string();
  onnx::ModelProto v = sigmoid;
  ASSERT_TRUE(apply_mutation(v, m).ok()) << m.to_string();
  EXPECT_TRUE(check_variant(v).ok());
  EXPECT_EQ(variant_inputs(v).at("x"),
            "random:uniform,lo=" + m.params.at("lo") + ",hi=" + m.params.at("hi"));
  // Operators without a tail get none; a made-up input or an empty range is refused by name.
  EXPECT_TRUE(edge_candidates(one_node_model("Relu", 13), rng).empty());
  onnx::ModelProto w = sigmoid;
  Status st = apply_mutation(w, {"edge", {{"input", "nope"}, {"lo", "-1"}, {"hi", "1"}}});
  EXPECT_NE(st.message().find("no graph input named 'nope'"), std::string::npos) << st.to_string();
  st = apply_mutation(w, {"edge", {{"input", "x"}, {"lo", "2"}, {"hi", "1"}}});
  EXPECT_NE(st.message().find("lo 2 is not below hi 1"), std::string::npos) << st.to_string();
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
  const std::map<std::string, int> added = {{"add0", 1},       {"mul1", 1},     {"identity", 1},
                                            {"transpose2", 2}, {"reshape2", 3}, {"cast2", 2}};
  for (const auto& [how, nodes] : added) {
    onnx::ModelProto m = p;
    ASSERT_TRUE(apply_mutation(m, {"insert", {{"value", value}, {"how", how}}}).ok()) << how;
    ASSERT_TRUE(check_variant(m).ok()) << check_variant(m).to_string();
    EXPECT_EQ(m.graph().node_size(), p.graph().node_size() + nodes) << how;
    auto out = run_ref(m);
    ASSERT_TRUE(out.ok()) << how << ": " << out.status().to_string();
    // The round trips move or convert values exactly: the same bits.
    if (how != "add0" && how != "mul1") {
      EXPECT_TRUE(out->bitwise_equal(*base)) << how;
    }
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

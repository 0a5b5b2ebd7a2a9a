// infergap precision and overflow: born-here vs inherited error on a model with a known answer,
// the keep-in-float search on a model whose minimal set is known, and the overflow finder.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "../support/mini_resnet.h"
#include "../support/onnx_builder.h"
#include "analysis/precision/layers.h"
#include "analysis/precision/search.h"
#include "synth/convert_precision.h"
#include "synth/graph_builder.h"
#include "synth/mutate.h"
#include "synth/quantize_model.h"
#include "workflow/precision.h"

namespace ig {
namespace {

using testing::add_node;
using testing::add_tensor_value;
using testing::TempDir;

void floats(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims,
            std::vector<float> v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float x : v) t->add_float_data(x);
}

// Parent: y1 = x * a, y2 = y1 * b. Derived: each layer adds a constant error after its Mul.
onnx::ModelProto two_layers(bool derived) {
  auto m = testing::empty_model("two");
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 4});
  add_tensor_value(g->add_output(), "y2", onnx::TensorProto::FLOAT, {1, 4});
  floats(g, "a", {4}, {1, 2, 3, 4});
  floats(g, "b", {4}, {2, 2, 2, 2});
  if (!derived) {
    add_node(g, "Mul", "layer1", {"x", "a"}, {"y1"});
    add_node(g, "Mul", "layer2", {"y1", "b"}, {"y2"});
    return m;
  }
  floats(g, "d1", {4}, {0.5f, 0, 0, 0});
  floats(g, "d2", {4}, {0, 0.25f, 0, 0});
  add_node(g, "Mul", "mul1", {"x", "a"}, {"m1"});
  add_node(g, "Add", "layer1", {"m1", "d1"}, {"y1"});
  add_node(g, "Mul", "mul2", {"y1", "b"}, {"m2"});
  add_node(g, "Add", "layer2", {"m2", "d2"}, {"y2"});
  return m;
}

class Precision : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("INFERGAP_WORKER", INFERGAP_WORKER, 1); }
  TempDir dir;
};

TEST_F(Precision, BornHereAndInheritedOnTwoLayers) {
  PrecisionPlan plan;
  plan.derived = testing::write_model(two_layers(true), dir.file("d.onnx"));
  plan.parent = testing::write_model(two_layers(false), dir.file("p.onnx"));
  plan.inputs.specs = {"x=value:1"};
  auto o = run_precision(plan);
  ASSERT_TRUE(o.ok()) << o.status().to_string();
  ASSERT_EQ(o->layers.size(), 2u);
  // y1 = [1.5 2 3 4] against [1 2 3 4]: noise 0.25 of signal 30, all of it born there.
  EXPECT_EQ(o->layers[0].node, "layer1");
  EXPECT_NEAR(o->layers[0].total->sqnr_db, 10 * std::log10(30 / 0.25), 1e-9);
  EXPECT_NEAR(o->layers[0].born->sqnr_db, 10 * std::log10(30 / 0.25), 1e-9);
  EXPECT_NEAR(o->layers[0].born_share(), 1.0, 1e-12);
  // y2 = [3 4.25 6 8] against [2 4 6 8]: 1 inherited (2 x 0.5) plus 0.25 born: noise 1.0625 in
  // all, 0.0625 of it born there, of signal 120.
  EXPECT_EQ(o->layers[1].node, "layer2");
  EXPECT_NEAR(o->layers[1].total->sqnr_db, 10 * std::log10(120 / 1.0625), 1e-9);
  EXPECT_NEAR(o->layers[1].born->sqnr_db, 10 * std::log10(120 / 0.0625), 1e-9);
  EXPECT_NEAR(o->layers[1].born_share(), 0.0625 / 1.0625, 1e-9);
  ASSERT_EQ(o->outputs.size(), 1u);
  EXPECT_NEAR(o->outputs[0].v.rel_error, 1.0 / 8, 1e-12);
  EXPECT_EQ(o->runs, 3);  // parent, derived, and every layer alone in one model
}

TEST_F(Precision, ParentThatDoesNotMatchIsNamed) {
  auto other = testing::relu_model();
  PrecisionPlan plan;
  plan.derived = testing::write_model(two_layers(true), dir.file("d.onnx"));
  plan.parent = testing::write_model(other, dir.file("relu.onnx"));
  auto o = run_precision(plan);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("differ in their graph inputs: [x] against [X]"),
            std::string::npos)
      << o.status().message();
}

TEST_F(Precision, SearchNeedsALineage) {
  PrecisionPlan plan;
  plan.derived = testing::write_model(two_layers(true), dir.file("d.onnx"));
  plan.parent = testing::write_model(two_layers(false), dir.file("p.onnx"));
  plan.inputs.specs = {"x=value:1"};
  plan.bound = {PrecisionBound::Kind::kRtol, 0.01};
  auto o = run_precision(plan);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("no lineage"), std::string::npos) << o.status().message();
}

// x[1,8] -> Mul(0.5) -> MatMul(W, entries 16000 to 80000) -> LayerNormalization -> MatMul(V) -> y.
// In float16 the first MatMul's output (about 2e5) overflows: it and the LayerNormalization
// reading it must stay float32 (a Cast between them would overflow again), nothing else.
onnx::ModelProto overflowing_model() {
  auto m = testing::empty_model("overflow");
  m.mutable_opset_import(0)->set_version(17);
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 8});
  add_tensor_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {1, 4});
  floats(g, "half", {}, {0.5f});
  std::vector<float> w(64), v(32);
  for (int i = 0; i < 64; ++i) w[i] = 16000.0f * static_cast<float>(1 + (i * 7) % 5);
  for (int i = 0; i < 32; ++i) v[i] = 0.25f * static_cast<float>((i * 3) % 7) - 0.75f;
  floats(g, "W", {8, 8}, w);
  floats(g, "V", {8, 4}, v);
  floats(g, "gamma", {8}, std::vector<float>(8, 1.0f));
  floats(g, "beta", {8}, std::vector<float>(8, 0.0f));
  add_node(g, "Mul", "scale", {"x", "half"}, {"xs"});
  add_node(g, "MatMul", "wide", {"xs", "W"}, {"h"});
  add_node(g, "LayerNormalization", "norm", {"h", "gamma", "beta"}, {"n"});
  add_node(g, "MatMul", "head", {"n", "V"}, {"y"});
  return m;
}

TEST_F(Precision, OverflowFinderNamesTheNodeAndItsFixWorks) {
  const auto parent = overflowing_model();
  auto half = convert_precision(parent, ConvertOptions{DType::kFloat16, true, {}, "p", ""});
  ASSERT_TRUE(half.ok()) << half.status().to_string();
  OverflowPlan plan;
  plan.parent = testing::write_model(parent, dir.file("p.onnx"));
  plan.derived = testing::write_model(half->model, dir.file("h.onnx"));
  plan.inputs.specs = {"x=value:1"};
  auto rep = run_overflow(plan);
  ASSERT_TRUE(rep.ok()) << rep.status().to_string();
  ASSERT_EQ(rep->first_overflow.size(), 1u);
  const auto& first = rep->rows[rep->first_overflow[0]];
  EXPECT_EQ(first.node, "wide");
  EXPECT_EQ(first.infs, 8);
  EXPECT_GT(first.parent_max, 65504);
  EXPECT_LT(first.headroom_bits, 0);
  EXPECT_EQ(rep->keep, (std::vector<std::string>{"wide", "norm"}));
  // convert --block of what the finder names: no value overflows any more.
  auto fixed = convert_precision(parent, ConvertOptions{DType::kFloat16, true, rep->keep, "p", ""});
  ASSERT_TRUE(fixed.ok()) << fixed.status().to_string();
  plan.derived = testing::write_model(fixed->model, dir.file("fixed.onnx"));
  auto after = run_overflow(plan);
  ASSERT_TRUE(after.ok()) << after.status().to_string();
  EXPECT_TRUE(after->first_overflow.empty());
}

TEST_F(Precision, SearchFindsTheKnownMinimalSet) {
  const auto parent = overflowing_model();
  auto half = convert_precision(parent, ConvertOptions{DType::kFloat16, true, {}, "p", ""});
  ASSERT_TRUE(half.ok()) << half.status().to_string();
  PrecisionPlan plan;
  plan.parent = testing::write_model(parent, dir.file("p.onnx"));
  plan.derived = testing::write_model(half->model, dir.file("h.onnx"));
  plan.inputs.specs = {"x=value:1"};
  plan.bound = {PrecisionBound::Kind::kRtol, 0.02};
  plan.out_model = dir.file("fixed.onnx");
  auto o = run_precision(plan);
  ASSERT_TRUE(o.ok()) << o.status().to_string();
  EXPECT_FALSE(o->meets);
  ASSERT_TRUE(o->search && o->search->found);
  auto kept = o->search->kept;
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<std::string>{"norm", "wide"}));
  EXPECT_EQ(o->derivation, "convert");
  // The fixed model was run and meets the bound; its lineage records the blocks.
  ASSERT_EQ(o->fixed_outputs.size(), 1u);
  EXPECT_LE(o->fixed_outputs[0].v.rel_error, 0.02);
  EXPECT_EQ(o->fixed_outputs[0].v.nonfinite, 0);
  auto lineage = lineage_from_model(*read_model_proto(plan.out_model));
  ASSERT_TRUE(lineage.ok());
  EXPECT_EQ(lineage->mutations[0].params.at("block"), "wide,norm");
}

// On infergap quantize's layout every Conv layer reaches back through its DequantizeLinear nodes
// to the QuantizeLinear of the float value before it, and ends at the QuantizeLinear of its own
// output when the next layer reads it quantized.
TEST(PrecisionLayers, QdqConvLayersReachTheirFloatInputs) {
  GraphBuilder b("m", DType::kFloat32, 3, WeightInit{});
  std::string v = b.activation(b.conv(b.input("x", {3, 8, 8}), 3, 4, 3, 1, 1), Activation::kRelu);
  v = b.conv(v, 4, 4, 3, 1, 1);
  b.output(b.flatten(b.global_avg_pool(v)), "y", {4});
  const auto parent = b.finish();
  QuantizeOptions o;
  o.samples = 2;
  auto q = quantize_model(parent, o);
  ASSERT_TRUE(q.ok()) << q.status().to_string();
  std::set<std::string> shared{"x"};
  for (const auto& n : parent.graph().node()) shared.insert(n.output(0));
  const auto& g = q->model.graph();
  const auto layers = match_layers(g, shared, quantized_views(g));
  int convs = 0;
  for (const auto& l : layers) {
    if (l.op_type != "Conv") continue;
    ++convs;
    ASSERT_EQ(l.boundary.size(), 1u) << l.node;
    std::map<std::string, int> ops;
    bool quantizes_boundary = false;
    for (int i : l.nodes) {
      ++ops[g.node(i).op_type()];
      quantizes_boundary |=
          g.node(i).op_type() == "QuantizeLinear" && g.node(i).input(0) == l.boundary[0];
    }
    EXPECT_TRUE(quantizes_boundary) << l.node;
    EXPECT_GE(ops["DequantizeLinear"], 2) << l.node;  // the activation and the weight
    EXPECT_EQ(ops["Conv"], 1) << l.node;
  }
  EXPECT_EQ(convs, 2);
  // The second Conv's output is quantized for the pool: measured after that QuantizeLinear.
  const auto& last = *std::find_if(layers.rbegin(), layers.rend(),
                                   [](const PrecisionLayer& l) { return l.op_type == "Conv"; });
  ASSERT_TRUE(last.view.has_value());
  EXPECT_GT(last.view->scale, 0);
}

TEST(PrecisionSearch, DeltaDebuggingEndsOneMinimal) {
  // Meets when c and f are both in float (and e, or g): the minimal sets are {c,f,e} and {c,f,g};
  // the greedy prefix over this ranking holds all of a..g.
  const std::vector<std::string> ranked{"a", "b", "c", "d", "e", "f", "g", "h"};
  auto has = [](const std::vector<std::string>& s, const char* x) {
    return std::find(s.begin(), s.end(), x) != s.end();
  };
  int calls = 0;
  auto r = search_keep_in_float(ranked, [&](const std::vector<std::string>& kept) {
    ++calls;
    const bool ok = has(kept, "c") && has(kept, "f") && (has(kept, "e") || has(kept, "g"));
    return Expected<TrialResult>(TrialResult{ok, ""});
  });
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->found);
  EXPECT_EQ(r->prefix, 6u);
  auto kept = r->kept;
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<std::string>{"c", "e", "f"}));
  EXPECT_EQ(static_cast<size_t>(calls), r->trials.size());  // each set tried once
  EXPECT_EQ(r->trials.front().phase, "start");
}

TEST(PrecisionSearch, NothingFoundWhenAllInFloatMisses) {
  auto r = search_keep_in_float({"a", "b"}, [](const std::vector<std::string>&) {
    return Expected<TrialResult>(TrialResult{false, ""});
  });
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found);
  EXPECT_EQ(r->trials.size(), 2u);
}

}  // namespace
}  // namespace ig

// expose_executed_graph on hand-made "optimized" graphs in ORT's NCHWc form: what it maps, and
// that it leaves unmapped what it cannot tell apart (a wrong mapping would invent a discrepancy).
#include "backends/ort/ort_executed_graph.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "model/onnx_model.h"
#include "synth/graph_builder.h"

namespace ig {
namespace {

void add_nchwc(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& in,
               const std::string& out, const std::string& activation = "") {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_domain("com.microsoft.nchwc");
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
  if (!activation.empty()) {
    auto* a = n->add_attribute();
    a->set_name("activation");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(activation);
  }
}

void add_weight(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
}

// y = conv_a(x) + conv_b(x), both 1x1 with 16 outputs: alike but for their weights.
struct TwoBranches {
  Model model;
  std::string a, b, sum;
};

TwoBranches two_branches() {
  GraphBuilder builder("two", DType::kFloat32, 1, WeightInit{});
  TwoBranches t;
  const std::string x = builder.input("x", {16, 4, 4});
  t.a = builder.conv(x, 16, 16, 1, 1, 0);
  t.b = builder.conv(x, 16, 16, 1, 1, 0);
  t.sum = builder.add(t.a, t.b);
  builder.output(t.sum, t.sum, {16, 4, 4});
  onnx::ModelProto proto = builder.finish();
  auto model = model_from_proto(proto, "two", "", {});
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  t.model = std::move(*model);
  return t;
}

TEST(OrtExecutedGraph, TwoLookAlikeConvolutionsOnOneInputStayUnmapped) {
  TwoBranches t = two_branches();
  onnx::ModelProto opt;
  auto* g = opt.mutable_graph();
  add_weight(g, "wa", {16, 16, 1, 1});
  add_weight(g, "wb", {16, 16, 1, 1});
  add_nchwc(g, "ReorderInput", {"x"}, "x_b");
  add_nchwc(g, "Conv", {"x_b", "wa"}, "t0");
  add_nchwc(g, "Conv", {"x_b", "wb"}, "t1");
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("t0");
  add->add_input("t1");
  add->add_output("t2");
  add_nchwc(g, "ReorderOutput", {"t2"}, t.sum);
  auto plan = expose_executed_graph(t.model, opt);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  // Each NCHWc Conv fits both original ones (same input, geometry and channels): neither is
  // mapped, nor the Add reading them; only the graph output, under its own name, is.
  size_t mapped = 0;
  for (const auto& outs : plan->fetch_of)
    for (const auto& f : outs) mapped += !f.empty();
  EXPECT_EQ(mapped, 1u) << "only the graph output";
  EXPECT_EQ(plan->nchwc_values, 0u);
}

TEST(OrtExecutedGraph, AnNchwcConvWithItsActivationMapsToTheRelu) {
  GraphBuilder builder("one", DType::kFloat32, 1, WeightInit{});
  const std::string x = builder.input("x", {16, 4, 4});
  const std::string conv = builder.conv(x, 16, 32, 3, 1, 1);
  const std::string relu = builder.activation(conv, Activation::kRelu);
  const std::string pooled = builder.global_avg_pool(relu);
  builder.output(pooled, pooled, {32, 1, 1});
  onnx::ModelProto proto = builder.finish();
  auto model = model_from_proto(proto, "one", "", {});
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  onnx::ModelProto opt;
  auto* g = opt.mutable_graph();
  add_weight(g, "w", {32, 16, 3, 3});
  add_nchwc(g, "ReorderInput", {"x"}, "x_b");
  add_nchwc(g, "Conv", {"x_b", "w"}, "t0", "Relu");
  add_nchwc(g, "GlobalAveragePool", {"t0"}, "t1");
  add_nchwc(g, "ReorderOutput", {"t1"}, pooled);
  auto plan = expose_executed_graph(*model, opt);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->nchwc_values, 1u);
  // Conv's own value is fused away; the Relu's comes from t0 through an added ReorderOutput.
  EXPECT_EQ(plan->fetch_of[0][0], "");
  EXPECT_EQ(plan->fetch_of[1][0], "t0.infergap_nchw");
  EXPECT_NE(plan->reports[1].covers.find(model->graph.nodes[0].name), std::string::npos);
  EXPECT_EQ(plan->reports[1].note, "ort ran com.microsoft.nchwc.Conv");
  EXPECT_EQ(plan->fetch_of[2][0], pooled);
  const auto& added = g->node(g->node_size() - 1);
  EXPECT_EQ(added.op_type(), "ReorderOutput");
  EXPECT_EQ(added.attribute(0).i(), 32) << "channels of the original value";
}

}  // namespace
}  // namespace ig

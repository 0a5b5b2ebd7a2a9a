#include <gtest/gtest.h>

#include <cmath>

#include "../support/onnx_builder.h"
#include "backends/ref/ref_backend.h"
#include "inputs/rng.h"
#include "inputs/variant_inputs.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "synth/zoo.h"

namespace ig {
namespace {

onnx::ModelProto conv_at_output() {
  auto p = build_zoo_model("Cifar10-small", ZooOptions{});
  EXPECT_TRUE(p.ok());
  // The first Conv alone: its output is the graph output, so every attribute may change.
  onnx::ModelProto m = *p;
  EXPECT_TRUE(apply_mutation(m, {"extract", {{"node", "conv"}}}).ok());
  return m;
}

Shape weight_shape(const onnx::ModelProto& m) {
  for (const auto& t : m.graph().initializer())
    if (t.name() == m.graph().node(0).input(1)) return Shape(t.dims().begin(), t.dims().end());
  return {};
}

Shape output_shape(const onnx::ModelProto& m) {
  Shape s;
  for (const auto& d : m.graph().output(0).type().tensor_type().shape().dim())
    s.push_back(d.dim_value());
  return s;
}

TEST(MutateAttrs, ConvAttributesRegenerateWeightsAndReinferShapes) {
  const onnx::ModelProto base = conv_at_output();
  const Shape w = weight_shape(base);
  ASSERT_EQ(w.size(), 4u);
  auto with = [&](const std::string& key, const std::string& value) {
    onnx::ModelProto m = base;
    Status st = apply_mutation(
        m, {"attr", {{"node", "conv"}, {"key", key}, {"value", value}, {"seed", "5"}}});
    EXPECT_TRUE(st.ok()) << st.to_string();
    EXPECT_TRUE(check_variant(m).ok()) << key;
    return m;
  };
  EXPECT_EQ(weight_shape(with("channels", "8")), (Shape{8, w[1], w[2], w[3]}));
  EXPECT_EQ(output_shape(with("channels", "8"))[1], 8);
  EXPECT_EQ(weight_shape(with("kernel", "1")), (Shape{w[0], w[1], 1, 1}));
  const Shape in = output_shape(base);
  EXPECT_EQ(output_shape(with("stride", "2"))[2], (in[2] + 1) / 2);
  // Same seed, same weights: the lineage replays.
  EXPECT_EQ(content_hash(with("kernel", "1")), content_hash(with("kernel", "1")));
  onnx::ModelProto bad = base;
  EXPECT_FALSE(
      apply_mutation(bad,
                     {"attr", {{"node", "conv"}, {"key", "group"}, {"value", "2"}, {"seed", "1"}}})
          .ok());  // 3 input channels
}

TEST(MutateAttrs, InjectRecordsTheSpecTheCampaignFeeds) {
  onnx::ModelProto m = conv_at_output();
  ASSERT_TRUE(apply_mutation(m, {"inject", {{"input", "x"}, {"inject", "nan@0/3"}}}).ok());
  EXPECT_EQ(variant_inputs(m).at("x"), "random:uniform,inject=nan@0/3");
  EXPECT_FALSE(apply_mutation(m, {"inject", {{"input", "nope"}, {"inject", "nan@0"}}}).ok());
  EXPECT_FALSE(apply_mutation(m, {"inject", {{"input", "x"}, {"inject", "blue@0"}}}).ok());
  EXPECT_TRUE(check_variant(m).ok());
}

// x: float[1,1,3,3] -> a MaxPool 3x3, stride 1, pads 1 -> y, and y2 = Relu(y) when `feeds`.
onnx::ModelProto padded_pool(bool feeds) {
  onnx::ModelProto m = testing::empty_model("g");
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 1, 3, 3});
  testing::add_tensor_value(g->add_output(), feeds ? "y2" : "y", onnx::TensorProto::FLOAT,
                            {1, 1, 3, 3});
  auto* n = g->add_node();
  n->set_op_type("MaxPool");
  n->set_name("pool");
  n->add_input("x");
  n->add_output("y");
  for (const auto& [key, v] :
       {std::pair<std::string, int64_t>{"kernel_shape", 3}, {"pads", 1}, {"strides", 1}}) {
    auto* a = n->add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::INTS);
    for (int i = 0; i < (key == "pads" ? 4 : 2); ++i) a->add_ints(v);
  }
  if (feeds) {
    auto* r = g->add_node();
    r->set_op_type("Relu");
    r->set_name("relu");
    r->add_input("y");
    r->add_output("y2");
  }
  return m;
}

TEST(MutateWindow, APaddedPoolGetsA1x1WindowWhoseBorderIsAllPadding) {
  const onnx::ModelProto base = padded_pool(false);
  Rng rng(3);
  const auto candidates = window_candidates(base, rng);
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].params.at("node"), "pool");
  onnx::ModelProto m = base;
  ASSERT_TRUE(apply_mutation(m, {"window", {{"node", "pool"}, {"count_include_pad", "0"}}}).ok());
  EXPECT_TRUE(check_variant(m).ok());
  const auto& n = m.graph().node(0);
  EXPECT_EQ(n.op_type(), "AveragePool");
  EXPECT_EQ(output_shape(m), (Shape{1, 1, 5, 5}));  // (3 + 2 - 1) / 1 + 1
  // ONNX's AveragePool without count_include_pad: a window of padding alone is 0 / 0; inside,
  // each window is one pixel.
  auto model = model_from_proto(m, "window", "", LoadOptions{});
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  std::vector<float> xs(9);
  for (int i = 0; i < 9; ++i) xs[static_cast<size_t>(i)] = static_cast<float>(i + 1);
  RefBackend ref;
  auto out = ref.run(*model, {{"x", Tensor::from_vector(xs, {1, 1, 3, 3})}}, nullptr);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const Tensor& y = (*out)[0].tensor;
  EXPECT_TRUE(std::isnan(y.as_double(0)));
  EXPECT_EQ(y.as_double(6), 1.0);   // row 1, column 1: x[0][0]
  EXPECT_EQ(y.as_double(18), 9.0);  // row 3, column 3: x[2][2]
  // With count_include_pad, the average of the padding's zeros.
  onnx::ModelProto with_pad = base;
  ASSERT_TRUE(
      apply_mutation(with_pad, {"window", {{"node", "pool"}, {"count_include_pad", "1"}}}).ok());
  auto model1 = model_from_proto(with_pad, "window", "", LoadOptions{});
  ASSERT_TRUE(model1.ok()) << model1.status().to_string();
  auto out1 = ref.run(*model1, {{"x", Tensor::from_vector(xs, {1, 1, 3, 3})}}, nullptr);
  ASSERT_TRUE(out1.ok()) << out1.status().to_string();
  EXPECT_EQ((*out1)[0].tensor.as_double(0), 0.0);
  EXPECT_EQ((*out1)[0].tensor.as_double(6), 1.0);
  // A pool inside the graph keeps its window: its consumers expect its shape.
  onnx::ModelProto inner = padded_pool(true);
  EXPECT_TRUE(window_candidates(inner, rng).empty());
  const Status st =
      apply_mutation(inner, {"window", {{"node", "pool"}, {"count_include_pad", "1"}}});
  EXPECT_NE(st.message().find("its output feeds other nodes"), std::string::npos) << st.to_string();
  EXPECT_FALSE(apply_mutation(m, {"window", {{"node", "pool"}, {"count_include_pad", "2"}}}).ok());
}

}  // namespace
}  // namespace ig

#include <gtest/gtest.h>

#include "inputs/variant_inputs.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"
#include "synth/mutate.h"
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

}  // namespace
}  // namespace ig

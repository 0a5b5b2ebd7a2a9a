#include "synth/convert_precision.h"

#include <gtest/gtest.h>

#include "../support/run_ref.h"

#include <cmath>

#include "backends/ref/ref_backend.h"
#include "inputs/random_input.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"
#include "synth/graph_builder.h"
#include "synth/mutate.h"
#include "tensor/convert.h"

namespace ig {
namespace {

// Conv -> Relu -> Mul by a Constant(value_float) -> GlobalAveragePool -> Flatten -> Gemm.
onnx::ModelProto float_model() {
  GraphBuilder b("c", DType::kFloat32, 4, WeightInit{});
  std::string v = b.activation(b.conv(b.input("x", {3, 8, 8}), 3, 8, 3, 1, 1), Activation::kRelu);
  v = b.mul(v, b.node("Constant", {}, "two", {{"value_float", 2.0f}}));
  v = b.dense(b.flatten(b.global_avg_pool(v)), 8, 5);
  b.output(v, "y", {5});
  return b.finish();
}

int elem_type(const onnx::ValueInfoProto& v) { return v.type().tensor_type().elem_type(); }

// Relative L2 distance of `b` (any float type) from `a`.
double rel_error(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  double err = 0, norm = 0;
  for (int64_t i = 0; i < a.numel() && i < b.numel(); ++i) {
    err += std::pow(a.as_double(i) - b.as_double(i), 2);
    norm += std::pow(a.as_double(i), 2);
  }
  return std::sqrt(err / norm);
}

TEST(ConvertPrecision, Fp16RunsOnRefCloseToFloat) {
  const auto parent = float_model();
  auto r = convert_precision(parent, ConvertOptions{DType::kFloat16, false, {}, "m", ""});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_TRUE(check_variant(r->model).ok());
  const auto& g = r->model.graph();
  EXPECT_EQ(elem_type(g.input(0)), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(elem_type(g.output(0)), onnx::TensorProto::FLOAT16);
  for (const auto& t : g.initializer()) EXPECT_NE(t.data_type(), onnx::TensorProto::FLOAT);
  EXPECT_TRUE(r->kept.empty());
  EXPECT_EQ(r->casts, 0);
  for (const auto& n : g.node())
    if (n.op_type() == "Constant") {
      ASSERT_EQ(n.attribute_size(), 1);
      EXPECT_EQ(n.attribute(0).t().data_type(), onnx::TensorProto::FLOAT16);
    }
  for (uint64_t seed : {1, 2}) {
    const Tensor x = random_uniform_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, seed);
    const Tensor y = testing::run_ref_on_x(r->model, convert_float_tensor(x, DType::kFloat16));
    EXPECT_EQ(y.dtype(), DType::kFloat16);
    EXPECT_LT(rel_error(testing::run_ref_on_x(parent, x), y), 5e-3);
  }
}

TEST(ConvertPrecision, KeepIoKeepsFloat32InputsAndOutputs) {
  const auto parent = float_model();
  auto r = convert_precision(parent, ConvertOptions{DType::kFloat16, true, {}, "m", ""});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const auto& g = r->model.graph();
  EXPECT_EQ(elem_type(g.input(0)), onnx::TensorProto::FLOAT);
  EXPECT_EQ(elem_type(g.output(0)), onnx::TensorProto::FLOAT);
  EXPECT_EQ(r->casts, 2);
  const Tensor x = random_uniform_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, 3);
  const Tensor y = testing::run_ref_on_x(r->model, x);
  EXPECT_EQ(y.dtype(), DType::kFloat32);
  EXPECT_LT(rel_error(testing::run_ref_on_x(parent, x), y), 5e-3);
}

TEST(ConvertPrecision, Bf16KeepsConvInFloat32WhereItsSchemaHasNoBf16) {
  const auto parent = float_model();
  auto r = convert_precision(parent, ConvertOptions{DType::kBFloat16, true, {}, "m", ""});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_TRUE(check_variant(r->model).ok());
  ASSERT_EQ(r->kept.count("conv"), 1u);  // Conv takes bfloat16 only from opset 22
  EXPECT_NE(r->kept.at("conv").find("bf16"), std::string::npos);
  int bf16_inits = 0;
  for (const auto& t : r->model.graph().initializer())
    bf16_inits += t.data_type() == onnx::TensorProto::BFLOAT16;
  EXPECT_EQ(bf16_inits, 2);  // the Gemm's weight and bias
  const Tensor x = random_uniform_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, 4);
  EXPECT_LT(rel_error(testing::run_ref_on_x(parent, x), testing::run_ref_on_x(r->model, x)), 3e-2);
}

TEST(ConvertPrecision, BlockedNodesComputeInFloat32BehindCasts) {
  const auto parent = float_model();
  auto r = convert_precision(parent, ConvertOptions{DType::kFloat16, false, {"dense"}, "m", ""});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->kept.at("dense"), "blocked");
  const auto& g = r->model.graph();
  std::map<std::string, int> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = t.data_type();
  for (const auto& n : g.node()) {
    if (n.name() != "dense") continue;
    const onnx::NodeProto* cast = nullptr;
    for (const auto& c : g.node())
      if (c.output(0) == n.input(0)) cast = &c;
    ASSERT_NE(cast, nullptr);
    EXPECT_EQ(cast->op_type(), "Cast");
    EXPECT_EQ(inits.at(n.input(1)), onnx::TensorProto::FLOAT);
  }
  const Tensor x = random_uniform_tensor(DType::kFloat32, Shape{1, 3, 8, 8}, 5);
  EXPECT_LT(rel_error(testing::run_ref_on_x(parent, x),
                      testing::run_ref_on_x(r->model, convert_float_tensor(x, DType::kFloat16))),
            5e-3);
}

TEST(ConvertPrecision, RecordsItsLineageAndReplays) {
  const auto parent = float_model();
  auto r = convert_precision(parent, ConvertOptions{DType::kBFloat16, true, {"Relu"}, "m", ""});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  auto lineage = lineage_from_model(r->model);
  ASSERT_TRUE(lineage.ok());
  EXPECT_EQ(lineage->parent_hash, content_hash(parent));
  ASSERT_EQ(lineage->mutations.size(), 1u);
  EXPECT_EQ(lineage->mutations[0].to_string(), "convert(block=Relu,keep_io=1,to=bf16)");
  auto again = replay_lineage(parent, *lineage);
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(content_hash(*again), content_hash(r->model));
}

// Float types fixed by attributes: ConstantOfShape's value (given and default) and Cast's `to`.
TEST(ConvertPrecision, RetargetsConstantOfShapeAndCast) {
  GraphBuilder b("attrs", DType::kFloat32, 1, WeightInit{});
  const std::string x = b.input("x", {2, 3});
  const std::string shape = b.node("Shape", {x}, "shape");
  const std::string zeros = b.node("ConstantOfShape", {shape}, "zeros");
  const std::string halves =
      b.node("ConstantOfShape", {shape}, "halves", {{"value", std::vector<float>{0.5f}}});
  const std::string n = b.node("Cast", {b.node("Size", {x}, "size")}, "n",
                               {{"to", int64_t{onnx::TensorProto::FLOAT}}});
  b.output(b.add(b.add(b.add(x, zeros), halves), n), "y", {2, 3});
  auto parent = b.finish();
  // GraphBuilder writes float lists as FLOATS; ConstantOfShape wants a one-element tensor.
  for (auto& node : *parent.mutable_graph()->mutable_node())
    if (node.name() == "halves") {
      node.clear_attribute();
      auto* a = node.add_attribute();
      a->set_name("value");
      a->set_type(onnx::AttributeProto::TENSOR);
      tensor_to_proto(Tensor::from_vector<float>({0.5f}, {1}), "", a->mutable_t());
    }
  ASSERT_TRUE(check_variant(parent).ok());
  auto r = convert_precision(parent, ConvertOptions{DType::kFloat16, false, {}, "m", ""});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_TRUE(r->kept.empty());
  const Tensor x16 = convert_float_tensor(random_uniform_tensor(DType::kFloat32, Shape{1, 2, 3}, 1),
                                          DType::kFloat16);
  const Tensor y = testing::run_ref_on_x(r->model, x16);
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  for (int64_t i = 0; i < y.numel(); ++i)
    EXPECT_NEAR(y.as_double(i), x16.as_double(i) + 0.5 + 6, 1e-2);
}

TEST(ConvertPrecision, RefusesUnknownTargetsAndBlocks) {
  EXPECT_FALSE(parse_precision("int8").ok());
  auto r =
      convert_precision(float_model(), ConvertOptions{DType::kFloat16, false, {"nope"}, "m", ""});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nope"), std::string::npos);
}

}  // namespace
}  // namespace ig

// ONNX element types infergap lacks (float6) and narrow values that do not fit their
// type: errors at load that name the node and the type, instead of "unknown data type 22" or a
// zero point silently wrapped.
#include <gtest/gtest.h>

#include "../support/onnx_builder.h"
#include "core/dtype.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"

namespace ig {
namespace {

using testing::add_tensor_value;
using testing::empty_model;
using testing::TempDir;

// X float[2] -> QuantizeLinear 'quant' (scale s, zero point z of `z_type` holding `z`) -> Y.
onnx::ModelProto quantize(int z_type, int z) {
  onnx::ModelProto m = empty_model("q");
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {2});
  add_tensor_value(g->add_output(), "Y", onnx::TensorProto::UINT8, {2});
  auto* s = g->add_initializer();
  s->set_name("s");
  s->set_data_type(onnx::TensorProto::FLOAT);
  s->add_float_data(0.5f);
  auto* zp = g->add_initializer();
  zp->set_name("z");
  zp->set_data_type(z_type);
  zp->add_int32_data(z);
  auto* n = g->add_node();
  n->set_op_type("QuantizeLinear");
  n->set_name("quant");
  for (const char* in : {"X", "s", "z"}) n->add_input(in);
  n->add_output("Y");
  return m;
}

Status load(const onnx::ModelProto& m) {
  TempDir dir;
  const std::string path = dir.file("model.onnx");
  EXPECT_TRUE(save_model_proto(m, path).ok());
  return load_model(path).status();
}

// TensorProto.DataType 27 and 28 (ONNX 1.20), newer than Debian's libonnx names.
constexpr int kFloat6E2M3 = 27, kFloat6E3M2 = 28;

TEST(LackedTypes, OnnxNamesOfTheTypesWeLack) {
  EXPECT_EQ(lacked_onnx_type(kFloat6E2M3), "float6e2m3");
  EXPECT_EQ(lacked_onnx_type(kFloat6E3M2), "float6e3m2");
  for (int ours : {16, 17, 21, 22, 24, 26})  // bfloat16, float8e4m3fn, uint4, int4, e8m0, int2
    EXPECT_FALSE(lacked_onnx_type(ours).has_value()) << ours;
  EXPECT_FALSE(lacked_onnx_type(29).has_value());  // not an ONNX type (yet)
}

TEST(LackedTypes, Float6ZeroPointNamesTheNode) {
  const Status st = load(quantize(kFloat6E2M3, 0));
  EXPECT_EQ(st.code(), StatusCode::kUnsupported) << st.to_string();
  EXPECT_NE(st.message().find("unsupported type float6e2m3 in node QuantizeLinear 'quant' "
                              "(initializer 'z')"),
            std::string::npos)
      << st.message();
}

TEST(LackedTypes, NarrowTypesWeHaveLoad) {
  EXPECT_TRUE(load(quantize(onnx::TensorProto::UINT8, 0)).ok());
  EXPECT_TRUE(load(quantize(22, 7)).ok());  // an int4 zero point: one packed byte
  const Status st = load(quantize(22, 300));
  EXPECT_NE(st.message().find("int32_data value 300 at index 0 is not a byte of packed int4"),
            std::string::npos)
      << st.message();
}

TEST(LackedTypes, Float6OutputAndCastAttributeNameTheNode) {
  onnx::ModelProto m = quantize(onnx::TensorProto::UINT8, 0);
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      kFloat6E3M2);
  Status st = load(m);
  EXPECT_NE(st.message().find("unsupported type float6e3m2 in node QuantizeLinear 'quant' "
                              "(value 'Y')"),
            std::string::npos)
      << st.message();

  onnx::ModelProto cast = testing::relu_model();
  auto* n = cast.mutable_graph()->mutable_node(0);
  n->set_op_type("Cast");
  auto* a = n->add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(kFloat6E2M3);
  st = load(cast);
  EXPECT_NE(st.message().find("unsupported type float6e2m3 in node Cast 'relu0' (attribute 'to')"),
            std::string::npos)
      << st.message();
}

TEST(LackedTypes, ZeroPointOutsideItsTypeIsAnError) {
  const Status st = load(quantize(onnx::TensorProto::UINT8, 300));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("node QuantizeLinear 'quant': tensor 'z': int32_data value 300 at "
                              "index 0 is outside uint8"),
            std::string::npos)
      << st.message();
  EXPECT_TRUE(load(quantize(onnx::TensorProto::INT8, -128)).ok());
}

}  // namespace
}  // namespace ig

// Quantized operators' constant scales are checked when the model loads (model/quant_scales.h), so
// that every platform refuses a scale of 0, a negative, NaN or Inf one alike, instead of a library
// computing with 1 / 0 and saying ok; other operators' scales (BatchNormalization's) may be
// anything.
#include "model/quant_scales.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../support/onnx_builder.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"

namespace ig {
namespace {

using testing::add_tensor_value;
using testing::empty_model;

// X -> QuantizeLinear(s) -> com.microsoft QLinearAdd(X_q, s, z, X_q, s, z, c_scale, z) -> Y;
// or, with `bn`, X -> BatchNormalization(scale = c_scale) -> Y.
onnx::ModelProto model(float c_scale, bool bn = false) {
  onnx::ModelProto m = empty_model("q");
  auto* ms = m.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 2});
  auto init = [&](const std::string& name, Tensor t) {
    tensor_to_proto(t, name, g->add_initializer());
  };
  auto* n = g->add_node();
  if (bn) {
    add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 2});
    init("c", Tensor::from_vector<float>({1.0f, c_scale}, {2}));
    init("zero", Tensor::from_vector<float>({0.0f, 0.0f}, {2}));
    init("one", Tensor::from_vector<float>({1.0f, 1.0f}, {2}));
    n->set_op_type("BatchNormalization");
    n->set_name("bn");
    for (const char* in : {"X", "c", "zero", "zero", "one"}) n->add_input(in);
    n->add_output("Y");
    return m;
  }
  add_tensor_value(g->add_output(), "Y", onnx::TensorProto::UINT8, {1, 2});
  init("s", Tensor::from_vector<float>({0.1f}, {}));
  init("z", Tensor::from_vector<uint8_t>({128}, {}));
  init("c", Tensor::from_vector<float>({c_scale}, {}));
  n->set_op_type("QuantizeLinear");
  n->set_name("q");
  for (const char* in : {"X", "s", "z"}) n->add_input(in);
  n->add_output("Xq");
  auto* add = g->add_node();
  add->set_op_type("QLinearAdd");
  add->set_domain("com.microsoft");
  add->set_name("add");
  for (const char* in : {"Xq", "s", "z", "Xq", "s", "z", "c", "z"}) add->add_input(in);
  add->add_output("Y");
  return m;
}

TEST(QuantScales, ABadScaleOfAContribQuantizedOperatorIsRefusedAtLoad) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (float bad : {0.0f, -0.5f, nan, std::numeric_limits<float>::infinity()}) {
    onnx::ModelProto m = model(bad);
    const Status st = check_constant_scales(m);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find("com.microsoft.QLinearAdd 'add': C_scale 'c' is "),
              std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find("(element 0); a scale must be finite and above 0"),
              std::string::npos)
        << st.message();
    auto loaded = model_from_proto(m, "q.onnx", "", LoadOptions{});
    ASSERT_FALSE(loaded.ok());
    EXPECT_NE(loaded.status().message().find("q.onnx: com.microsoft.QLinearAdd 'add': C_scale"),
              std::string::npos)
        << loaded.status().message();
  }
  onnx::ModelProto fine = model(0.25f);
  EXPECT_TRUE(check_constant_scales(fine).ok());
}

TEST(QuantScales, ANormalizationsNegativeScaleIsNoQuantizationScale) {
  onnx::ModelProto m = model(-0.5f, /*bn=*/true);
  EXPECT_TRUE(check_constant_scales(m).ok());
  EXPECT_TRUE(model_from_proto(m, "bn.onnx", "", LoadOptions{}).ok());
}

TEST(QuantScales, FormalNamesComeFromTheOperatorsSchema) {
  EXPECT_EQ(formal_input_name("", "QuantizeLinear", 13, 1), "y_scale");
  EXPECT_EQ(formal_input_name("", "QLinearConv", 10, 4), "w_scale");
  EXPECT_EQ(formal_input_name("com.microsoft", "QGemm", 1, 7), "y_scale");
  EXPECT_EQ(formal_input_name("", "NoSuchOperator", 13, 0), "");
}

}  // namespace
}  // namespace ig

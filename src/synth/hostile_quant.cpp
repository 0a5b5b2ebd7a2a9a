// Quantized models (QDQ and QOperator) with bad quantization parameters: scales of 0, negative,
// NaN or Inf, zero points of another type than their data or outside their type, parameter
// shapes that do not fit the axis, and ONNX types infergap lacks (float6). Each must end
// in an error naming the node and the problem, not in numbers computed from them.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <functional>
#include <limits>

#include "synth/hostile.h"

namespace ig::hostile {

namespace {

using TP = onnx::TensorProto;

struct QModel {
  onnx::ModelProto m;
  onnx::GraphProto* g;
  QModel() {
    m.set_ir_version(8);
    m.set_producer_name("infergap-hostile");
    auto* os = m.add_opset_import();
    os->set_domain("");
    os->set_version(13);
    g = m.mutable_graph();
    g->set_name("quant");
  }
  void value(onnx::ValueInfoProto* vi, const std::string& name, int type,
             std::vector<int64_t> dims) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  void floats(const std::string& name, std::vector<int64_t> dims, std::vector<float> v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(TP::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
  }
  // 8-bit (or other narrow) values in int32_data, as ONNX stores them.
  void ints(const std::string& name, int type, std::vector<int64_t> dims, std::vector<int> v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    for (int x : v) t->add_int32_data(x);
  }
  onnx::NodeProto* node(const std::string& op, const std::string& name, std::vector<std::string> in,
                        std::vector<std::string> out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return n;
  }
};

// X float[2,3] -> QuantizeLinear 'quant' (scale s, zero point z) -> Y; `edit` breaks it.
QModel quantize(std::vector<int64_t> s_dims, std::vector<float> s, std::vector<int64_t> z_dims,
                std::vector<int> z, int z_type = TP::UINT8) {
  QModel q;
  q.value(q.g->add_input(), "X", TP::FLOAT, {2, 3});
  q.value(q.g->add_output(), "Y", z_type, {2, 3});
  q.floats("s", s_dims, s);
  q.ints("z", z_type, z_dims, z);
  q.node("QuantizeLinear", "quant", {"X", "s", "z"}, {"Y"});
  return q;
}

// X float[2,3] -> QuantizeLinear -> uint8 -> QLinearMatMul 'qmm' with B uint8[3,2] -> Y uint8:
// the QOperator form, with its six parameters.
QModel qlinear_matmul(float b_scale, int b_zp_type) {
  QModel q;
  q.value(q.g->add_input(), "X", TP::FLOAT, {2, 3});
  q.value(q.g->add_output(), "Y", TP::UINT8, {2, 2});
  q.floats("xs", {}, {0.02f});
  q.ints("xz", TP::UINT8, {}, {0});
  q.node("QuantizeLinear", "quant", {"X", "xs", "xz"}, {"Xq"});
  q.ints("B", TP::UINT8, {3, 2}, {1, 2, 3, 4, 5, 6});
  q.floats("bs", {}, {b_scale});
  q.ints("bz", b_zp_type, {}, {0});
  q.floats("ys", {}, {0.1f});
  q.ints("yz", TP::UINT8, {}, {0});
  q.node("QLinearMatMul", "qmm", {"Xq", "xs", "xz", "B", "bs", "bz", "ys", "yz"}, {"Y"});
  return q;
}

std::string serialized_quant_model(const onnx::ModelProto& m) {
  std::string out;
  m.SerializeToString(&out);
  return out;
}

}  // namespace

std::vector<HostileCase> quant_cases(const std::string& dir) {
  std::vector<HostileCase> cases;
  auto add = [&](const std::string& name, const QModel& q, std::vector<std::string> expect) {
    cases.push_back(
        {name, put(dir, name, "model.onnx", serialized_quant_model(q.m)), {}, std::move(expect)});
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::string> bad_scale = {"y_scale 's' is", "finite and above 0"};
  add("quant_scale_zero", quantize({}, {0.0f}, {}, {0}), bad_scale);
  add("quant_scale_negative", quantize({}, {-0.5f}, {}, {0}), bad_scale);
  add("quant_scale_nan", quantize({}, {nan}, {}, {0}), bad_scale);
  add("quant_scale_inf", quantize({}, {inf}, {}, {0}), bad_scale);
  add("quant_per_axis_scale_zero", quantize({3}, {0.1f, 0.0f, 0.1f}, {3}, {0, 0, 0}),
      {"finite and above 0"});
  add("quant_axis_shape", quantize({2}, {0.1f, 0.1f}, {2}, {0, 0}),
      {"one per element along the axis"});
  add("quant_scale_zero_point_shapes", quantize({3}, {0.1f, 0.1f, 0.1f}, {2}, {0, 0}),
      {"same shape"});
  add("quant_zero_point_outside_type", quantize({}, {0.1f}, {}, {300}),
      {"300 at index 0 is outside uint8"});
  add("quant_zero_point_float6", quantize({}, {0.1f}, {}, {0}, 27),
      {"unsupported type float6e2m3 in node quantizelinear 'quant'"});
  {
    QModel q = quantize({}, {0.1f}, {}, {0});
    q.g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(28);
    add("quant_output_float6", q, {"unsupported type float6e3m2 in node quantizelinear"});
  }
  {
    // DequantizeLinear of uint8 data with an int8 zero point.
    QModel q;
    q.value(q.g->add_input(), "X", TP::FLOAT, {2, 3});
    q.value(q.g->add_output(), "Y", TP::FLOAT, {2, 3});
    q.floats("s", {}, {0.1f});
    q.ints("z", TP::UINT8, {}, {3});
    q.ints("dz", TP::INT8, {}, {-3});
    q.node("QuantizeLinear", "quant", {"X", "s", "z"}, {"Xq"});
    q.node("DequantizeLinear", "dequant", {"Xq", "s", "dz"}, {"Y"});
    add("dequant_zero_point_type", q, {"x_zero_point 'dz' is int8 but x 'xq' is uint8"});
  }
  {
    QModel q;
    q.value(q.g->add_input(), "X", TP::FLOAT, {2, 3});
    q.value(q.g->add_output(), "Y", TP::FLOAT, {2, 3});
    q.node("Cast", "cast", {"X"}, {"Y"});
    auto* a = q.g->mutable_node(0)->add_attribute();
    a->set_name("to");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(28);
    add("cast_to_float6", q, {"unsupported type float6e3m2 in node cast 'cast'"});
  }
  add("qlinear_matmul_scale_zero", qlinear_matmul(0.0f, TP::UINT8),
      {"qlinearmatmul 'qmm': b_scale 'bs' is 0"});
  add("qlinear_matmul_zero_point_type", qlinear_matmul(0.05f, TP::INT8),
      {"b_zero_point 'bz' is int8 but b 'b' is uint8"});
  {
    // ConvInteger of uint8 X [1,1,3,3] with an int8 x_zero_point.
    QModel q;
    q.value(q.g->add_input(), "X", TP::FLOAT, {1, 1, 3, 3});
    q.value(q.g->add_output(), "Y", TP::INT32, {1, 1, 2, 2});
    q.floats("s", {}, {0.02f});
    q.ints("z", TP::UINT8, {}, {0});
    q.node("QuantizeLinear", "quant", {"X", "s", "z"}, {"Xq"});
    q.ints("W", TP::UINT8, {1, 1, 2, 2}, {1, 2, 3, 4});
    q.ints("xz", TP::INT8, {}, {1});
    q.node("ConvInteger", "convint", {"Xq", "W", "xz"}, {"Y"});
    add("conv_integer_zero_point_type", q, {"x_zero_point 'xz' is int8 but x 'xq' is uint8"});
  }
  return cases;
}

}  // namespace ig::hostile

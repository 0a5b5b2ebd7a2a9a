// ONNX Runtime's QOperator contrib operators (com.microsoft, opset 1), which its quantizer writes
// in QuantFormat.QOperator, registered with libonnx for their output types and shapes, as
// contrib_defs.cc / quantization_defs.cc state them. Without them shape inference stops at the
// first QLinearAdd, and nothing after it has a declared type (the executed-graph trace of ORT,
// the checks of types, need them).
#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <mutex>

#include "model/ort_onnx_domain.h"

namespace ig {

namespace {

constexpr const char* kMs = "com.microsoft";
const std::vector<std::string> k8Bit = {"tensor(uint8)", "tensor(int8)"};
const std::vector<std::string> kScale = {"tensor(float)"};

onnx::OpSchema base(const char* name, const char* doc) {
  onnx::OpSchema s;
  s.SetName(name).SetDomain(kMs).SinceVersion(1).SetDoc(doc);
  s.TypeConstraint("T", k8Bit, "8-bit integers").TypeConstraint("S", kScale, "scales");
  return s;
}

// X, X_scale, X_zero_point, Y_scale, Y_zero_point -> Y of X's type and shape.
onnx::OpSchema unary(const char* name, const char* doc) {
  onnx::OpSchema s = base(name, doc);
  s.Input(0, "X", "input", "T")
      .Input(1, "X_scale", "scale", "S")
      .Input(2, "X_zero_point", "zero point", "T", onnx::OpSchema::Optional)
      .Input(3, "Y_scale", "scale", "S")
      .Input(4, "Y_zero_point", "zero point", "T", onnx::OpSchema::Optional)
      .Output(0, "Y", "output", "T")
      .TypeAndShapeInferenceFunction([](onnx::InferenceContext& ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        if (onnx::hasInputShape(ctx, 0)) onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
      });
  return s;
}

// A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point -> C, broadcast.
onnx::OpSchema binary(const char* name, const char* doc) {
  onnx::OpSchema s = base(name, doc);
  s.Input(0, "A", "input", "T")
      .Input(1, "A_scale", "scale", "S")
      .Input(2, "A_zero_point", "zero point", "T", onnx::OpSchema::Optional)
      .Input(3, "B", "input", "T")
      .Input(4, "B_scale", "scale", "S")
      .Input(5, "B_zero_point", "zero point", "T", onnx::OpSchema::Optional)
      .Input(6, "C_scale", "scale", "S")
      .Input(7, "C_zero_point", "zero point", "T", onnx::OpSchema::Optional)
      .Output(0, "C", "output", "T")
      .TypeAndShapeInferenceFunction([](onnx::InferenceContext& ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        if (onnx::hasInputShape(ctx, 0) && onnx::hasInputShape(ctx, 3))
          onnx::bidirectionalBroadcastShapeInference(onnx::getInputShape(ctx, 0),
                                                     onnx::getInputShape(ctx, 3),
                                                     *onnx::getOutputShape(ctx, 0));
      });
  return s;
}

onnx::OpSchema global_average_pool() {
  onnx::OpSchema s = unary("QLinearGlobalAveragePool", "mean over the spatial dims, requantized");
  s.Attr("channels_last", "NHWC input", onnx::AttributeProto::INT, static_cast<int64_t>(0))
      .TypeAndShapeInferenceFunction([](onnx::InferenceContext& ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        if (!onnx::hasInputShape(ctx, 0)) return;
        const auto& in = onnx::getInputShape(ctx, 0);
        if (in.dim_size() < 2) return;
        const bool last = onnx::getAttribute(ctx, "channels_last", 0) != 0;
        auto* out = onnx::getOutputShape(ctx, 0);
        const int channel = last ? in.dim_size() - 1 : 1;
        for (int i = 0; i < in.dim_size(); ++i) {
          if (i == 0 || i == channel)
            *out->add_dim() = in.dim(i);
          else
            out->add_dim()->set_dim_value(1);
        }
      });
  return s;
}

// A, a_scale, a_zero_point, B, b_scale, b_zero_point, C (int32), y_scale, y_zero_point: float
// output without y_scale, else y_zero_point's type (uint8 without it).
onnx::OpSchema qgemm() {
  onnx::OpSchema s;
  s.SetName("QGemm").SetDomain(kMs).SinceVersion(1).SetDoc("int8 Gemm, ORT's QOperator format");
  s.Attr("transA", "transpose A", onnx::AttributeProto::INT, static_cast<int64_t>(0))
      .Attr("transB", "transpose B", onnx::AttributeProto::INT, static_cast<int64_t>(0))
      .Attr("alpha", "scalar multiplier", onnx::AttributeProto::FLOAT, 1.0f)
      .Input(0, "A", "input", "TA")
      .Input(1, "a_scale", "scale", "S")
      .Input(2, "a_zero_point", "zero point", "TA", onnx::OpSchema::Optional)
      .Input(3, "B", "input", "TB")
      .Input(4, "b_scale", "scale", "S")
      .Input(5, "b_zero_point", "zero point", "TB", onnx::OpSchema::Optional)
      .Input(6, "C", "bias", "TC", onnx::OpSchema::Optional)
      .Input(7, "y_scale", "scale", "S", onnx::OpSchema::Optional)
      .Input(8, "y_zero_point", "zero point", "TYZ", onnx::OpSchema::Optional)
      .Output(0, "Y", "output", "TY")
      .TypeConstraint("TA", k8Bit, "A")
      .TypeConstraint("TB", k8Bit, "B")
      .TypeConstraint("TC", {"tensor(int32)"}, "bias")
      .TypeConstraint("S", kScale, "scales")
      .TypeConstraint("TYZ", k8Bit, "output zero point")
      .TypeConstraint("TY", {"tensor(float)", "tensor(uint8)", "tensor(int8)"}, "Y")
      .TypeAndShapeInferenceFunction([](onnx::InferenceContext& ctx) {
        const size_t n = ctx.getNumInputs();
        const bool quantized = n > 7 && ctx.getInputType(7) != nullptr;
        if (!quantized)
          onnx::updateOutputElemType(ctx, 0, onnx::TensorProto::FLOAT);
        else if (n > 8 && ctx.getInputType(8) != nullptr)
          onnx::propagateElemTypeFromInputToOutput(ctx, 8, 0);
        else
          onnx::updateOutputElemType(ctx, 0, onnx::TensorProto::UINT8);
        if (!onnx::hasInputShape(ctx, 0) || !onnx::hasInputShape(ctx, 3)) return;
        const auto& a = onnx::getInputShape(ctx, 0);
        const auto& b = onnx::getInputShape(ctx, 3);
        if (a.dim_size() != 2 || b.dim_size() != 2) return;
        const bool ta = onnx::getAttribute(ctx, "transA", 0) != 0;
        const bool tb = onnx::getAttribute(ctx, "transB", 0) != 0;
        auto* out = onnx::getOutputShape(ctx, 0);
        *out->add_dim() = a.dim(ta ? 1 : 0);
        *out->add_dim() = b.dim(tb ? 0 : 1);
      });
  return s;
}

}  // namespace

void register_ort_qoperator_schemas() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& domains = onnx::OpSchemaRegistry::DomainToVersionRange::Instance();
    if (domains.Map().count(kMs) == 0) domains.AddDomainToVersion(kMs, 1, 1);
    for (onnx::OpSchema s : {binary("QLinearAdd", "C = quantize(dequantize(A) + dequantize(B))"),
                             binary("QLinearMul", "C = quantize(dequantize(A) * dequantize(B))"),
                             unary("QLinearSigmoid", "Y = quantize(sigmoid(dequantize(X)))"),
                             unary("QLinearLeakyRelu", "Y = quantize(leaky_relu(dequantize(X)))"),
                             unary("QLinearSoftmax", "Y = quantize(softmax(dequantize(X)))"),
                             global_average_pool(), qgemm()}) {
      if (s.Name() == "QLinearLeakyRelu")
        s.Attr("alpha", "slope below 0", onnx::AttributeProto::FLOAT, 0.01f);
      if (s.Name() == "QLinearSoftmax") {
        s.Attr("axis", "softmax axis", onnx::AttributeProto::INT, static_cast<int64_t>(-1));
        s.Attr("opset", "the Softmax opset whose semantics hold", onnx::AttributeProto::INT, false);
      }
      onnx::OpSchemaRegistry::OpSchemaRegisterOnce registration(s);
    }
  });
}

}  // namespace ig

#include "model/ort_onnx_domain.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <mutex>

namespace ig {

void register_ort_onnx_domain_schemas() {
  static std::once_flag once;
  std::call_once(once, [] {
    // ORT's schema (contrib_defs.cc): X and scale of float types, Y of scale's type, the
    // optional inverse standard deviation of the stash type.
    onnx::OpSchema schema;
    schema.SetName("SimplifiedLayerNormalization")
        .SetDomain("")
        .SinceVersion(1)
        .SetDoc("ONNX Runtime's RMS normalization over [axis, rank)")
        .Attr("axis", "first normalized dimension", onnx::AttributeProto::INT,
              static_cast<int64_t>(-1))
        .Attr("epsilon", "added to the mean square", onnx::AttributeProto::FLOAT, 1e-5f)
        .Attr("stash_type", "type of the statistics", onnx::AttributeProto::INT,
              static_cast<int64_t>(1))
        .Input(0, "X", "input", "T")
        .Input(1, "scale", "scale", "V")
        .Output(0, "Y", "output", "V")
        .Output(1, "inv_std_var", "inverse standard deviation", "U", onnx::OpSchema::Optional)
        .TypeConstraint(
            "T", {"tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"}, "X")
        .TypeConstraint("U", {"tensor(float)", "tensor(double)"}, "statistics")
        .TypeConstraint("V",
                        {"tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"},
                        "scale and Y")
        .TypeAndShapeInferenceFunction([](onnx::InferenceContext& ctx) {
          onnx::propagateElemTypeFromInputToOutput(ctx, 1, 0);
          if (onnx::hasInputShape(ctx, 0)) onnx::propagateShapeFromInputToOutput(ctx, 0, 0);
        });
    onnx::OpSchemaRegistry::OpSchemaRegisterOnce registration(schema);
  });
}

}  // namespace ig

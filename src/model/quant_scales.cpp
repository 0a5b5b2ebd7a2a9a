#include "model/quant_scales.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <map>
#include <set>

#include "model/onnx_types.h"
#include "model/ort_onnx_domain.h"
#include "model/tensor_proto.h"

namespace ig {

namespace {

// Operators whose scales quantize: a BatchNormalization's or LayerNormalization's scale may be
// anything.
bool quantized_operator(const std::string& op) {
  return op == "QuantizeLinear" || op == "DequantizeLinear" || op == "QGemm" ||
         op.rfind("QLinear", 0) == 0;
}

bool ends_with_scale(const std::string& name) {
  return name.size() >= 5 && name.compare(name.size() - 5, 5, "scale") == 0;
}

}  // namespace

std::string formal_input_name(const std::string& domain, const std::string& op_type, int64_t opset,
                              size_t input) {
  register_ort_onnx_domain_schemas();
  register_ort_qoperator_schemas();
  const auto* schema = onnx::OpSchemaRegistry::Schema(op_type, static_cast<int>(opset),
                                                      domain == "ai.onnx" ? "" : domain);
  if (!schema || input >= schema->inputs().size()) return "";
  const auto& formal = schema->inputs()[input];
  // A variadic formal input names every input from its position on: not one scale.
  if (formal.GetOption() == onnx::OpSchema::Variadic) return "";
  return formal.GetName();
}

namespace {

// Calls visit(node index, formal name, input name, constant) for every constant scale input of a
// quantized operator in the main graph; stops at the first error visit returns.
template <typename Visit>
Status for_each_constant_scale(const onnx::ModelProto& model, Visit visit) {
  std::map<std::string, int64_t> opsets;
  for (const auto& o : model.opset_import())
    opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = o.version();
  const auto& g = model.graph();
  std::map<std::string, const onnx::TensorProto*> constants;
  for (const auto& t : g.initializer()) constants[t.name()] = &t;
  for (const auto& n : g.node())
    if (n.op_type() == "Constant" && n.output_size() == 1)
      for (const auto& a : n.attribute())
        if (a.name() == "value" && a.has_t()) constants[n.output(0)] = &a.t();
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
    auto opset = opsets.find(domain);
    if (opset == opsets.end() || !quantized_operator(n.op_type())) continue;
    for (int k = 1; k < n.input_size(); ++k) {
      auto c = constants.find(n.input(k));
      if (c == constants.end() || c->second->data_location() == onnx::TensorProto::EXTERNAL)
        continue;
      const std::string formal = formal_input_name(domain, n.op_type(), opset->second, k);
      if (ends_with_scale(formal)) IG_RETURN_IF_ERROR(visit(i, formal, n.input(k), *c->second));
    }
  }
  return Status::Ok();
}

}  // namespace

Status check_constant_scales(const onnx::ModelProto& model) {
  return for_each_constant_scale(
      model,
      [&](int i, const std::string& formal, const std::string& input,
          const onnx::TensorProto& c) -> Status {
        auto t = tensor_from_proto(c);
        if (!t.ok() || !is_float(t->dtype())) return Status::Ok();  // the checker and kernels say
        for (int64_t e = 0; e < t->numel(); ++e) {
          const double v = t->as_double(e);
          if (!(std::isfinite(v) && v > 0)) {
            const auto& n = model.graph().node(i);
            return invalid_argument(
                "{}: {} '{}' is {} (element {}); a scale must be finite and above 0",
                node_label(n, i), formal, input, v, e);
          }
        }
        return Status::Ok();
      });
}

std::set<std::string> constant_scale_names(const onnx::ModelProto& model) {
  std::set<std::string> names;
  (void)for_each_constant_scale(
      model,
      [&](int, const std::string&, const std::string& input, const onnx::TensorProto&) -> Status {
        names.insert(input);
        return Status::Ok();
      });
  return names;
}

}  // namespace ig

#include "backends/ref/numerics/precision.h"

namespace ig {

namespace {

void convert_graph(Graph& g, DType target);

// Whether a cast to `to` is a rounding that running in `target` must keep.
bool rounds_below(DType to, DType target) {
  return target == DType::kFloat64 && (to == DType::kFloat16 || to == DType::kBFloat16);
}

void convert_attribute(Attribute& a, DType target) {
  if (a.t.defined()) a.t = convert_float_tensor(a.t, target);
  for (auto& t : a.tensors) t = convert_float_tensor(t, target);
  if (a.g) {
    auto copy = std::make_shared<Graph>(*a.g);
    convert_graph(*copy, target);
    a.g = copy;
  }
  for (auto& sg : a.graphs) {
    auto copy = std::make_shared<Graph>(*sg);
    convert_graph(*copy, target);
    sg = copy;
  }
}

void convert_info(ValueInfo& v, DType target) {
  if (v.is_tensor && is_float(v.dtype)) v.dtype = target;
}

void convert_graph(Graph& g, DType target) {
  for (auto& v : g.inputs) convert_info(v, target);
  for (auto& v : g.outputs) convert_info(v, target);
  for (auto& [_, v] : g.value_info) convert_info(v, target);
  // Initializers stay as they are: the executor converts each when a node reads it
  // (ref_backend.cpp), so the weights are not held twice.
  for (auto& n : g.nodes) {
    for (auto& [name, a] : n.attributes) convert_attribute(a, target);
    // A cast to a floating type stays in the emulated precision (no detour through fp32), except
    // that under fp64 a cast to fp16 or bf16 still rounds to it: the model asks for that rounding
    // (an fp32 value beyond fp16's range becomes Inf there), and the executor widens the result
    // back to fp64, exactly, after the node. The fp64 oracle so computes what the model states.
    if (n.domain.empty() && n.op_type == "Cast") {
      if (Attribute* to = n.attributes.count("to") ? &n.attributes["to"] : nullptr) {
        if (to->kind == Attribute::Kind::kInt && is_valid_dtype(static_cast<int32_t>(to->i)) &&
            is_float(static_cast<DType>(to->i)) &&
            !rounds_below(static_cast<DType>(to->i), target)) {
          to->i = static_cast<int64_t>(target);
        }
      }
    }
  }
}

}  // namespace

void convert_float_value(Value& v, DType target) {
  if (v.is_tensor()) v.tensor = convert_float_tensor(v.tensor, target);
  for (auto& t : v.sequence) t = convert_float_tensor(t, target);
  if (is_float(v.sequence_dtype)) v.sequence_dtype = target;
}

Model convert_model_precision(const Model& model, DType target) {
  Model out = model;
  convert_graph(out.graph, target);
  return out;
}

}  // namespace ig

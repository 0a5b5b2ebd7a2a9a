#include "backends/ref/kernel.h"

namespace ig {

KernelRegistry& KernelRegistry::global() {
  static KernelRegistry registry;
  return registry;
}

void KernelRegistry::add(KernelDef def) { defs_.push_back(std::move(def)); }

Expected<const KernelDef*> KernelRegistry::find(const std::string& domain,
                                                const std::string& op_type, int64_t opset) const {
  return find_op_entry(defs_, domain, op_type, opset, [&] {
    const std::string op = domain.empty() ? op_type : domain + "." + op_type;
    return unsupported("operator {} is not implemented by the reference backend", op);
  });
}

const Value& KernelContext::input_value(size_t i) const {
  if (!has_input(i)) {
    throw StatusError(invalid_argument("{}: required input #{} is missing", node.label(), i));
  }
  return *inputs_[i];
}

const Tensor& KernelContext::input(size_t i) const {
  const Value& v = input_value(i);
  if (!v.is_tensor()) {
    throw StatusError(invalid_argument("{}: input #{} ('{}') is a sequence, expected a tensor",
                                       node.label(), i, node.inputs[i]));
  }
  return v.tensor;
}

Tensor& KernelContext::output(size_t i, DType dtype, Shape shape) {
  if (i >= outputs_.size()) {
    throw StatusError(
        invalid_argument("{}: output #{} is not declared by the node", node.label(), i));
  }
  outputs_[i] = Value::of(Tensor(dtype, std::move(shape)));
  return outputs_[i].tensor;
}

void KernelContext::set_output(size_t i, Tensor t) { set_output_value(i, Value::of(std::move(t))); }

void KernelContext::set_output_value(size_t i, Value v) {
  if (i >= outputs_.size()) {
    throw StatusError(
        invalid_argument("{}: output #{} is not declared by the node", node.label(), i));
  }
  outputs_[i] = std::move(v);
}

}  // namespace ig

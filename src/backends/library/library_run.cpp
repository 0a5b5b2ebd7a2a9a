#include "backends/library/library_run.h"

namespace ig {

void RunValues::set(const std::string& name, Value v) {
  native_.erase(name);
  host_[name] = std::move(v);
}

void RunValues::set_native(const std::string& name) {
  host_.erase(name);
  native_.insert(name);
}

Expected<const Value*> RunValues::host(const std::string& name) {
  if (auto it = host_.find(name); it != host_.end()) return &it->second;
  if (!native_.count(name)) return static_cast<const Value*>(nullptr);
  IG_ASSIGN_OR_RETURN(Value v, library_.to_host(name));
  native_.erase(name);
  return &(host_[name] = std::move(v));
}

Expected<const Tensor*> RunValues::input(const Node& node, const std::string& name) {
  IG_ASSIGN_OR_RETURN(const Value* v, host(name));
  if (!v) return invalid_argument("{}: input '{}' has no value", node.label(), name);
  if (!v->is_tensor()) return unsupported("{}: input '{}' is not a tensor", node.label(), name);
  return &v->tensor;
}

Expected<std::vector<const Tensor*>> RunValues::inputs(const Node& node) {
  std::vector<const Tensor*> out;
  for (const auto& name : node.inputs) {
    if (name.empty()) {
      out.push_back(nullptr);
      continue;
    }
    IG_ASSIGN_OR_RETURN(const Tensor* t, input(node, name));
    out.push_back(t);
  }
  return out;
}

TensorLookup host_or_initializer(RunValues& values, TensorLookup initializers) {
  return [&values, init = std::move(initializers)](const std::string& name) -> const Tensor* {
    auto v = values.host(name);
    return v.ok() && *v && (*v)->is_tensor() ? &(*v)->tensor : init(name);
  };
}

const NodeGroups& LibraryRun::groups() const {
  static const NodeGroups kNone;
  return kNone;
}

Expected<NativeOutputs> LibraryRun::run_group(const NodeGroup&, RunValues&) {
  return internal_error("this library runs no node groups");
}

Expected<Value> LibraryRun::to_host(const std::string& name) {
  return internal_error("the library holds no value '{}'", name);
}

void LibraryRun::ran_on_reference(const Node&) {}

}  // namespace ig

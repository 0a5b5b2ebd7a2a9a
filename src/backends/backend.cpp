#include "backends/backend.h"

namespace ig {

Expected<std::vector<Value>> Backend::run(const Model& model,
                                          const std::map<std::string, Tensor>& feeds,
                                          const NodeCallback& on_node) {
  std::map<std::string, Value> values;
  for (const auto& [name, t] : feeds) values[name] = Value::of(t);
  return run_values(model, values, on_node);
}

namespace {
void collect_unsupported(const Backend& backend, const Graph& g, const Model& model,
                         std::vector<std::pair<const Node*, Status>>& out) {
  for (const auto& n : g.nodes) {
    Status st = backend.supports(n, model);
    if (!st.ok()) out.emplace_back(&n, st);
    for (const auto& [_, a] : n.attributes) {
      if (a.g) collect_unsupported(backend, *a.g, model, out);
      for (const auto& sg : a.graphs) collect_unsupported(backend, *sg, model, out);
    }
  }
}
}  // namespace

std::vector<std::pair<const Node*, Status>> Backend::unsupported_nodes_of(
    const Model& model) const {
  std::vector<std::pair<const Node*, Status>> out;
  collect_unsupported(*this, model.graph, model, out);
  return out;
}

Status check_feeds(const Model& model, const std::map<std::string, Value>& feeds) {
  for (const auto& [name, t] : feeds) {
    bool known = false;
    for (const auto& in : model.graph.inputs) known = known || in.name == name;
    if (!known) {
      std::string names;
      for (const auto* in : model.graph.runtime_inputs())
        names += (names.empty() ? "" : ", ") + in->name;
      return invalid_argument("{}: the model has no input '{}' (inputs: {})", model.path, name,
                              names);
    }
  }
  for (const ValueInfo* in : model.graph.runtime_inputs()) {
    auto it = feeds.find(in->name);
    if (it == feeds.end()) {
      return invalid_argument("{}: input '{}' ({}) was not given", model.path, in->name,
                              in->describe());
    }
    const Value& v = it->second;
    if (!in->is_tensor) {
      if (v.is_tensor() && in->type_description == "sequence") {
        return invalid_argument("{}: input '{}' is a sequence but a tensor was given", model.path,
                                in->name);
      }
      continue;
    }
    if (!v.is_tensor()) {
      return invalid_argument(
          "{}: input '{}' expects {} but a sequence or empty optional was given", model.path,
          in->name, in->describe());
    }
    const Tensor& t = v.tensor;
    if (in->dtype != DType::kUndefined && t.dtype() != in->dtype) {
      return invalid_argument("{}: input '{}' expects {} but got {}", model.path, in->name,
                              in->describe(), t.describe());
    }
    if (in->has_shape) {
      bool match = in->dims.size() == static_cast<size_t>(t.rank());
      for (size_t d = 0; match && d < in->dims.size(); ++d) {
        if (in->dims[d].value >= 0 && in->dims[d].value != t.shape()[d]) match = false;
      }
      if (!match) {
        return invalid_argument("{}: input '{}' expects shape {} but got {}", model.path, in->name,
                                in->describe(), t.describe());
      }
    }
  }
  return Status::Ok();
}

namespace {
bool g_verify_every_trace = false;
}  // namespace

void set_verify_every_trace(bool on) { g_verify_every_trace = on; }
bool verify_every_trace() { return g_verify_every_trace; }

}  // namespace ig

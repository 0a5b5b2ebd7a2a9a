#include "analysis/precision/layers.h"

#include <algorithm>

#include "model/subgraph.h"
#include "tensor/convert.h"

namespace ig {

namespace {

bool is_plumbing(const std::string& op) {
  return op == "QuantizeLinear" || op == "DequantizeLinear" || op == "Cast";
}

bool holds_subgraph(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute())
    if (a.has_g() || a.graphs_size()) return true;
  return false;
}

struct GraphIndex {
  std::map<std::string, int> producer;
  std::set<std::string> initializers;
  explicit GraphIndex(const onnx::GraphProto& g) {
    for (const auto& i : g.initializer()) initializers.insert(i.name());
    for (int i = 0; i < g.node_size(); ++i)
      for (const auto& o : g.node(i).output())
        if (!o.empty()) producer[o] = i;
  }
};

// Walks up from node `start` to the shared values; false when a value entering the layer is
// neither shared, an initializer nor computed inside it.
bool collect_layer(const onnx::GraphProto& g, const GraphIndex& ix,
                   const std::set<std::string>& shared, int start, PrecisionLayer& layer) {
  std::set<int> nodes{start};
  std::set<std::string> boundary;
  std::vector<int> todo{start};
  while (!todo.empty()) {
    const auto& n = g.node(todo.back());
    todo.pop_back();
    if (holds_subgraph(n)) return false;
    for (const auto& v : n.input()) {
      if (v.empty() || ix.initializers.count(v)) continue;
      if (shared.count(v)) {
        boundary.insert(v);
        continue;
      }
      auto p = ix.producer.find(v);
      if (p == ix.producer.end()) return false;
      if (nodes.insert(p->second).second) todo.push_back(p->second);
    }
  }
  layer.nodes.assign(nodes.begin(), nodes.end());
  layer.boundary.assign(boundary.begin(), boundary.end());
  for (int i : layer.nodes)
    if (!is_plumbing(g.node(i).op_type())) layer.members.push_back(g.node(i).name());
  return true;
}

void add_initializers(const onnx::GraphProto& from, const std::set<std::string>& read,
                      onnx::GraphProto& to) {
  for (const auto& i : from.initializer())
    if (read.count(i.name())) *to.add_initializer() = i;
}

}  // namespace

std::vector<PrecisionLayer> match_layers(const onnx::GraphProto& derived,
                                         const std::set<std::string>& shared,
                                         const std::map<std::string, QuantizedView>& views) {
  const GraphIndex ix(derived);
  std::vector<PrecisionLayer> out;
  for (int i = 0; i < derived.node_size(); ++i) {
    const auto& n = derived.node(i);
    if (is_plumbing(n.op_type())) continue;
    for (const auto& o : n.output()) {
      if (o.empty() || !shared.count(o)) continue;
      PrecisionLayer layer{o, n.name(), n.op_type(), {}, {}, {}, {}};
      if (!collect_layer(derived, ix, shared, i, layer)) continue;
      if (auto v = views.find(o); v != views.end()) {
        layer.view = v->second;
        layer.nodes.push_back(v->second.q_index);
        std::sort(layer.nodes.begin(), layer.nodes.end());
      }
      out.push_back(std::move(layer));
    }
  }
  return out;
}

std::string born_output_name(const PrecisionLayer& layer, size_t k) {
  return (layer.view ? layer.view->q_value : layer.value) + "__born" + std::to_string(k);
}

Expected<onnx::ModelProto> born_here_model(const onnx::ModelProto& derived,
                                           const std::vector<PrecisionLayer>& layers,
                                           const std::map<std::string, Tensor>& types) {
  const auto& g = derived.graph();
  onnx::ModelProto m;
  m.set_ir_version(derived.ir_version());
  *m.mutable_opset_import() = derived.opset_import();
  *m.mutable_functions() = derived.functions();
  auto* out = m.mutable_graph();
  out->set_name("born_here");
  auto info = [&](const std::string& value,
                  const std::string& as) -> Expected<onnx::ValueInfoProto> {
    auto t = types.find(value);
    if (t == types.end()) return not_found("born-here model: no traced type for value '{}'", value);
    return tensor_value_info(as, t->second.dtype(), t->second.shape());
  };
  std::set<std::string> inputs, read;
  for (size_t k = 0; k < layers.size(); ++k) {
    const auto& layer = layers[k];
    const std::string suffix = "__born" + std::to_string(k);
    std::set<std::string> internal;
    for (int i : layer.nodes)
      for (const auto& o : g.node(i).output()) internal.insert(o);
    for (int i : layer.nodes) {
      onnx::NodeProto n = g.node(i);
      n.set_name(n.name() + suffix);
      for (auto& v : *n.mutable_input()) {
        read.insert(v);
        if (internal.count(v)) v += suffix;
      }
      for (auto& v : *n.mutable_output())
        if (!v.empty()) v += suffix;
      *out->add_node() = std::move(n);
    }
    for (const auto& b : layer.boundary) {
      if (!inputs.insert(b).second) continue;
      IG_ASSIGN_OR_RETURN(auto vi, info(b, b));
      *out->add_input() = std::move(vi);
    }
    IG_ASSIGN_OR_RETURN(
        auto vo, info(layer.view ? layer.view->q_value : layer.value, born_output_name(layer, k)));
    *out->add_output() = std::move(vo);
  }
  add_initializers(g, read, *out);
  return m;
}

Expected<std::map<std::string, Tensor>> born_here_feeds(
    const std::vector<PrecisionLayer>& layers, const std::map<std::string, Tensor>& parent,
    const std::map<std::string, Tensor>& types) {
  std::map<std::string, Tensor> feeds;
  for (const auto& layer : layers) {
    for (const auto& b : layer.boundary) {
      if (feeds.count(b)) continue;
      auto p = parent.find(b);
      auto t = types.find(b);
      if (p == parent.end() || t == types.end())
        return not_found("value '{}' entering layer '{}' was not traced in both models", b,
                         layer.node);
      if (p->second.shape() != t->second.shape())
        return invalid_argument("value '{}' has shape {} in the parent and {} in the derived model",
                                b, shape_to_string(p->second.shape()),
                                shape_to_string(t->second.shape()));
      feeds[b] = p->second.dtype() == t->second.dtype()
                     ? p->second
                     : convert_float_tensor(p->second, t->second.dtype());
    }
  }
  return feeds;
}

}  // namespace ig

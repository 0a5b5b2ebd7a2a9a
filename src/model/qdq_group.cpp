#include "model/qdq_group.h"

#include <algorithm>
#include <memory>

namespace ig {

namespace {

bool is_op(const Node& n, const char* op_type) { return n.domain.empty() && n.op_type == op_type; }

bool is_head_op(const Node& h) {
  return h.domain.empty() &&
         (h.op_type == "Conv" || h.op_type == "Gemm" || h.op_type == "MatMul") &&
         h.inputs.size() >= 2 && h.outputs.size() == 1;
}

// Whether a DequantizeLinear writes `value`: one scan, where an index costs a map of the graph.
bool dequantized(const Graph& g, const std::string& value) {
  for (const auto& n : g.nodes)
    if (is_op(n, "DequantizeLinear") && !n.outputs.empty() && n.outputs[0] == value) return true;
  return false;
}

}  // namespace

QdqGraphIndex::QdqGraphIndex(const Graph& g) : graph_(g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& o : g.nodes[i].outputs) producer_.emplace(o, i);
    for (const auto& in : node_reads(g.nodes[i])) readers_[in].push_back(i);
  }
  for (const auto& o : g.outputs) outputs_.insert(o.name);
}

QdqGraphIndex QdqGraphIndex::scanning(const Graph& g) { return QdqGraphIndex(g, true); }

namespace {

bool has_subgraph(const Node& n) {
  for (const auto& [_, a] : n.attributes)
    if (a.g || !a.graphs.empty()) return true;
  return false;
}

bool reads(const Node& n, const std::string& value) {
  if (has_subgraph(n)) {
    const auto all = node_reads(n);
    return std::binary_search(all.begin(), all.end(), value);
  }
  return std::find(n.inputs.begin(), n.inputs.end(), value) != n.inputs.end();
}

}  // namespace

std::optional<size_t> QdqGraphIndex::producer(const std::string& value) const {
  if (scan_) {
    for (size_t i = 0; i < graph_.nodes.size(); ++i)
      for (const auto& o : graph_.nodes[i].outputs)
        if (o == value) return i;
    return std::nullopt;
  }
  auto it = producer_.find(value);
  if (it == producer_.end()) return std::nullopt;
  return it->second;
}

std::optional<size_t> QdqGraphIndex::only_reader(const std::string& value) const {
  if (scan_) {
    for (const auto& o : graph_.outputs)
      if (o.name == value) return std::nullopt;
    std::optional<size_t> reader;
    for (size_t i = 0; i < graph_.nodes.size(); ++i) {
      if (!reads(graph_.nodes[i], value)) continue;
      if (reader) return std::nullopt;
      reader = i;
    }
    return reader;
  }
  if (outputs_.count(value) != 0) return std::nullopt;
  auto it = readers_.find(value);
  if (it == readers_.end() || it->second.size() != 1) return std::nullopt;
  return it->second[0];
}

bool may_head_qdq_group(const Graph& g, size_t head) {
  const Node& h = g.nodes[head];
  return is_head_op(h) && dequantized(g, h.inputs[0]) && dequantized(g, h.inputs[1]);
}

std::optional<QdqGroup> find_qdq_group(const QdqGraphIndex& index, size_t head) {
  const Graph& g = index.graph();
  const Node& h = g.nodes[head];
  if (!is_head_op(h)) return std::nullopt;
  auto dequantize = [&](const std::string& value) -> std::optional<size_t> {
    const auto p = index.producer(value);
    return p && is_op(g.nodes[*p], "DequantizeLinear") ? p : std::nullopt;
  };
  const auto px = dequantize(h.inputs[0]);
  const auto pw = dequantize(h.inputs[1]);
  if (!px || !pw) return std::nullopt;
  auto input = [&](size_t dq) {
    const auto r = index.only_reader(g.nodes[dq].outputs[0]);
    return QdqInput{dq, r && *r == head && g.nodes[dq].outputs.size() == 1};
  };
  QdqGroup grp;
  grp.head = head;
  grp.x = input(*px);
  grp.w = input(*pw);
  if (h.op_type != "MatMul" && h.inputs.size() > 2 && !h.inputs[2].empty()) {
    if (const auto pb = dequantize(h.inputs[2])) grp.b = input(*pb);
  }
  std::string value = h.outputs[0];
  auto next = index.only_reader(value);
  if (next && (is_op(g.nodes[*next], "Relu") || is_op(g.nodes[*next], "Clip")) &&
      !g.nodes[*next].outputs.empty()) {
    grp.act = *next;
    value = g.nodes[*next].outputs[0];
    next = index.only_reader(value);
  }
  if (next && is_op(g.nodes[*next], "QuantizeLinear")) grp.q = *next;
  if (grp.x.owned) grp.nodes.push_back(grp.x.node);
  if (grp.w.owned) grp.nodes.push_back(grp.w.node);
  if (grp.b && grp.b->owned) grp.nodes.push_back(grp.b->node);
  grp.nodes.push_back(head);
  if (grp.act) grp.nodes.push_back(*grp.act);
  if (grp.q) grp.nodes.push_back(*grp.q);
  std::sort(grp.nodes.begin(), grp.nodes.end());
  return grp;
}

std::optional<QdqGroup> find_qdq_group(const Graph& graph, size_t head) {
  // Backends ask this of every node of every run: an fp32 node is told apart without an index
  // (building one per node made runs quadratic in the graph's size).
  if (!may_head_qdq_group(graph, head)) return std::nullopt;
  return find_qdq_group(QdqGraphIndex::scanning(graph), head);
}

TensorLookup initializers_of(const Model& model) {
  // Constant nodes' values count too: PyTorch exports its quantized models' weights, scales and
  // zero points so.
  auto constants = std::make_shared<std::map<std::string, const Tensor*>>();
  for (const auto& n : model.graph.nodes) {
    const Attribute* value =
        is_op(n, "Constant") && n.outputs.size() == 1 ? n.attr("value") : nullptr;
    if (value && value->kind == Attribute::Kind::kTensor && value->t.raw())
      (*constants)[n.outputs[0]] = &value->t;
  }
  return [&model, constants](const std::string& name) -> const Tensor* {
    auto it = model.graph.initializers.find(name);
    if (it != model.graph.initializers.end()) return it->second.raw() ? &it->second : nullptr;
    auto c = constants->find(name);
    return c == constants->end() ? nullptr : c->second;
  };
}

}  // namespace ig

#include "backends/library/qdq_group.h"

#include <algorithm>
#include <map>
#include <memory>

namespace ig {

namespace {

std::optional<size_t> producer(const Graph& g, const std::string& value) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& outs = g.nodes[i].outputs;
    if (std::find(outs.begin(), outs.end(), value) != outs.end()) return i;
  }
  return std::nullopt;
}

bool is_graph_output(const Graph& g, const std::string& value) {
  return std::any_of(g.outputs.begin(), g.outputs.end(),
                     [&](const ValueInfo& o) { return o.name == value; });
}

// The one node reading `value`, when exactly one does and it is no graph output.
std::optional<size_t> only_reader(const Graph& g, const std::string& value) {
  if (is_graph_output(g, value)) return std::nullopt;
  std::optional<size_t> found;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto reads = node_reads(g.nodes[i]);
    const auto n = std::count(reads.begin(), reads.end(), value);
    if (n == 0) continue;
    if (found || n > 1) return std::nullopt;
    found = i;
  }
  return found;
}

bool is_dq(const Node& n) { return n.domain.empty() && n.op_type == "DequantizeLinear"; }

}  // namespace

std::optional<QdqGroup> find_qdq_group(const Model& model, size_t head) {
  const Graph& g = model.graph;
  const Node& h = g.nodes[head];
  if (!h.domain.empty() || (h.op_type != "Conv" && h.op_type != "Gemm" && h.op_type != "MatMul") ||
      h.inputs.size() < 2 || h.outputs.size() != 1) {
    return std::nullopt;
  }
  const auto px = producer(g, h.inputs[0]);
  const auto pw = producer(g, h.inputs[1]);
  if (!px || !pw || !is_dq(g.nodes[*px]) || !is_dq(g.nodes[*pw])) return std::nullopt;
  auto input = [&](size_t dq) {
    const auto r = only_reader(g, g.nodes[dq].outputs[0]);
    return QdqInput{dq, r && *r == head && g.nodes[dq].outputs.size() == 1};
  };
  QdqGroup grp;
  grp.head = head;
  grp.x = input(*px);
  grp.w = input(*pw);
  if (h.op_type != "MatMul" && h.inputs.size() > 2 && !h.inputs[2].empty()) {
    const auto pb = producer(g, h.inputs[2]);
    if (pb && is_dq(g.nodes[*pb])) grp.b = input(*pb);
  }
  std::string value = h.outputs[0];
  auto next = only_reader(g, value);
  if (next && g.nodes[*next].domain.empty() && g.nodes[*next].op_type == "Relu") {
    grp.relu = *next;
    value = g.nodes[*next].outputs[0];
    next = only_reader(g, value);
  }
  if (next && g.nodes[*next].domain.empty() && g.nodes[*next].op_type == "QuantizeLinear")
    grp.q = *next;
  if (grp.x.owned) grp.nodes.push_back(grp.x.node);
  if (grp.w.owned) grp.nodes.push_back(grp.w.node);
  if (grp.b && grp.b->owned) grp.nodes.push_back(grp.b->node);
  grp.nodes.push_back(head);
  if (grp.relu) grp.nodes.push_back(*grp.relu);
  if (grp.q) grp.nodes.push_back(*grp.q);
  std::sort(grp.nodes.begin(), grp.nodes.end());
  return grp;
}

TensorLookup initializers_of(const Model& model) {
  // Constant nodes' values count too: PyTorch exports its quantized models' weights, scales and
  // zero points so.
  auto constants = std::make_shared<std::map<std::string, const Tensor*>>();
  for (const auto& n : model.graph.nodes) {
    const Attribute* value = n.op_type == "Constant" && n.domain.empty() && n.outputs.size() == 1
                                 ? n.attr("value")
                                 : nullptr;
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

const Tensor* qdq_operand(const Node& n, size_t i, const TensorLookup& known) {
  return i < n.inputs.size() && !n.inputs[i].empty() ? known(n.inputs[i]) : nullptr;
}

bool qdq_int8_type(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

bool qdq_all_zero(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (t.as_double(i) != 0) return false;
  }
  return true;
}

bool qdq_uniform(const Tensor& t) {
  for (int64_t i = 1; i < t.numel(); ++i) {
    if (t.as_double(i) != t.as_double(0)) return false;
  }
  return true;
}

}  // namespace ig

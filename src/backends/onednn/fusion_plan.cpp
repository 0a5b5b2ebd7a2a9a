#include "backends/onednn/fusion_plan.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "backends/onednn/onednn_ops.h"

namespace ig::onednn {

namespace {
constexpr size_t kMaxGroup = 4;

bool commutative(const Node& n) {
  return n.op_type == "Add" || n.op_type == "Mul" || n.op_type == "Max" || n.op_type == "Min";
}

// False when the declared shapes show `next` widening `value` (a gate [1,C,1,1] times x[1,C,H,W]):
// a post-op only sees the anchor's elements. Unknown shapes pass here; execute() checks the
// real shapes and the group then runs unfused.
bool keeps_shape(const Graph& g, const std::string& value, const Node& next) {
  auto declared = [&](const std::string& name) -> const ValueInfo* {
    auto it = g.value_info.find(name);
    if (it != g.value_info.end()) return it->second.has_shape ? &it->second : nullptr;
    for (const auto& o : g.outputs) {
      if (o.name == name) return o.has_shape ? &o : nullptr;
    }
    return nullptr;
  };
  const ValueInfo* in = declared(value);
  const ValueInfo* out = declared(next.outputs[0]);
  if (!in || !out) return true;
  if (in->dims.size() != out->dims.size()) return false;
  for (size_t i = 0; i < in->dims.size(); ++i) {
    const Dim& a = in->dims[i];
    const Dim& b = out->dims[i];
    if (a.value >= 0 && b.value >= 0 && a.value != b.value) return false;
    if (a.value < 0 && b.value < 0 && !a.symbol.empty() && a.symbol != b.symbol) return false;
  }
  return true;
}

// A BatchNormalization of `value` alone (its parameters are other values): the convolution that
// produced it can apply it per channel as post-ops (onednn_ops.h bn_post_ops).
bool is_batch_norm_on(const Node& n, const std::string& value) {
  if (!n.domain.empty() || n.op_type != "BatchNormalization" || n.inputs.size() != 5) return false;
  if (n.inputs[0] != value || n.attr_int("spatial", 1) == 0) return false;
  return std::none_of(n.inputs.begin() + 1, n.inputs.end(),
                      [&](const std::string& in) { return in == value || in.empty(); });
}

// Int8 QDQ groups whose head oneDNN runs (check_native refused the others).
void plan_qdq(const Model& model, const std::function<bool(const Node&)>& native, FusionPlan& out) {
  const Graph& g = model.graph;
  const bool quantized = std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) {
    return n.domain.empty() && n.op_type == "DequantizeLinear";
  });
  if (!quantized) return;
  NodeGroups& plan = out.groups;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (plan.group_of[i] >= 0 || !native(g.nodes[i])) continue;
    auto grp = qdq_group_at(model, i, initializers_of(model));
    if (!grp.ok() || !*grp) continue;
    const auto& nodes = (*grp)->nodes;
    if (std::any_of(nodes.begin(), nodes.end(), [&](size_t n) { return plan.group_of[n] >= 0; }))
      continue;
    for (size_t n : nodes) plan.group_of[n] = static_cast<int>(plan.groups.size());
    plan.groups.push_back({nodes});
    out.qdq[nodes.back()] = std::move(**grp);
  }
}

// The group's residual Adds, where only convolutions and adds read what the group computes.
void mark_sums(const Graph& g, const NodeGroup& group, const std::vector<size_t>& readers,
               std::unordered_set<size_t>& sums) {
  for (size_t r : readers)
    if (g.nodes[r].op_type != "Conv" && g.nodes[r].op_type != "Add") return;
  for (size_t k = 1; k < group.nodes.size(); ++k)
    if (g.nodes[group.nodes[k]].op_type == "Add") sums.insert(group.nodes[k]);
}

}  // namespace

FusionPlan plan_fusion(const Model& model, const std::function<bool(const Node&)>& native,
                       bool bn_post_ops, bool residual_sum) {
  const Graph& g = model.graph;
  FusionPlan out;
  NodeGroups& plan = out.groups;
  plan.group_of.assign(g.nodes.size(), -1);
  plan_qdq(model, native, out);
  // Who reads each value; graph outputs must stay materialized, so they never fuse away.
  std::unordered_map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& in : node_reads(g.nodes[i])) readers[in].push_back(i);
  }
  std::unordered_set<std::string> graph_outputs;
  for (const auto& o : g.outputs) graph_outputs.insert(o.name);

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& head = g.nodes[i];
    // An operator oneDNN does not map heads no group (the reason is never shown).
    auto def = find_op_entry(ops(), head.domain, head.op_type, model.opset_for(head.domain),
                             [] { return unsupported("not mapped"); });
    if (plan.group_of[i] >= 0 || !def.ok() || !(*def)->run.takes_post_ops || !native(head) ||
        head.outputs.size() != 1) {
      continue;
    }
    NodeGroup group{{i}};
    std::string value = head.outputs[0];
    while (group.nodes.size() < kMaxGroup && !graph_outputs.count(value)) {
      auto it = readers.find(value);
      if (it == readers.end() || it->second.size() != 1) break;
      const size_t j = it->second[0];
      const Node& next = g.nodes[j];
      if (plan.group_of[j] >= 0 || !native(next) || next.outputs.size() != 1) break;
      const bool bn = bn_post_ops && group.nodes.size() == 1 && head.op_type == "Conv" &&
                      is_batch_norm_on(next, value);
      const bool eltwise = eltwise_post_op(next, model) && next.inputs[0] == value;
      const bool binary =
          binary_alg(next) && next.inputs[0] != next.inputs[1] &&
          (next.inputs[0] == value || (next.inputs[1] == value && commutative(next))) &&
          keeps_shape(g, value, next);
      if (!bn && !eltwise && !binary) break;
      group.nodes.push_back(j);
      value = next.outputs[0];
    }
    if (group.nodes.size() < 2) continue;
    if (residual_sum && head.op_type == "Conv") mark_sums(g, group, readers[value], out.sums);
    for (size_t n : group.nodes) plan.group_of[n] = static_cast<int>(plan.groups.size());
    plan.groups.push_back(std::move(group));
  }
  return out;
}

}  // namespace ig::onednn

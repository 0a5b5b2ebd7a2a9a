// One shape of operator table for every backend that maps ONNX nodes onto functions (reference
// kernels, oneDNN primitives, cuDNN / cuBLAS calls): which operator, for which opsets, whether a
// node fits (check) and how to run it. Only the run function differs between backends.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/graph.h"

namespace ig {

inline constexpr int kMaxOpset = 1000;

// One node's operands as a library backend that works on ig::Tensor receives them (oneDNN,
// XNNPACK): its backend's OpInputs.
struct NodeOperands {
  const Node& node;
  int64_t opset;
  std::vector<const Tensor*> in;  // nullptr for a missing optional input
  const Tensor& at(size_t i) const { return *in[i]; }
  bool has(size_t i) const { return i < in.size() && in[i] && in[i]->defined(); }
};

// Ok, or kUnsupported with a reason a user can read, from the node alone (attributes, constant
// inputs); shapes and dtypes are checked when the node runs.
using OpCheckFn = Status (*)(const Node& node, const Model& model);

template <typename RunFn>
struct OpEntry {
  std::string domain;  // "" is ai.onnx
  std::string op_type;
  int since = 1;
  int until = kMaxOpset;  // inclusive
  RunFn run{};
  OpCheckFn check = nullptr;  // none: every node of this operator and opset fits
};

// kUnsupported: "{op} is implemented for opsets [a, b], [c, latest] but the model uses opset N".
Status opset_mismatch(const std::string& domain, const std::string& op_type,
                      const std::vector<std::pair<int, int>>& ranges, int64_t opset);

// The first entry for (domain, op_type) whose range holds `opset`. None: opset_mismatch when the
// operator has entries for other opsets, else `unknown()` (the table owner's own message).
template <typename RunFn, typename Unknown>
Expected<const OpEntry<RunFn>*> find_op_entry(const std::vector<OpEntry<RunFn>>& table,
                                              const std::string& domain, const std::string& op_type,
                                              int64_t opset, Unknown&& unknown) {
  std::vector<std::pair<int, int>> ranges;
  for (const auto& e : table) {
    if (e.domain != domain || e.op_type != op_type) continue;
    if (opset >= e.since && opset <= e.until) return &e;
    ranges.emplace_back(e.since, e.until);
  }
  if (ranges.empty()) return Status(unknown());
  return opset_mismatch(domain, op_type, ranges, opset);
}

// The node's entry at the model's opset, then its check.
template <typename RunFn, typename Unknown>
Status check_op_entry(const std::vector<OpEntry<RunFn>>& table, const Node& node,
                      const Model& model, Unknown&& unknown) {
  auto e = find_op_entry(table, node.domain, node.op_type, model.opset_for(node.domain),
                         std::forward<Unknown>(unknown));
  if (!e.ok()) return e.status();
  return (*e)->check ? (*e)->check(node, model) : Status::Ok();
}

// Operator names in table order, for messages.
template <typename RunFn>
std::vector<std::string> op_names(const std::vector<OpEntry<RunFn>>& table) {
  std::vector<std::string> names;
  for (const auto& e : table) names.push_back(e.op_type);
  return names;
}

}  // namespace ig

#include "backends/single_node.h"

#include <algorithm>
#include <array>

namespace ig {

namespace {
constexpr std::array<const char*, 8> kDataMovement = {
    "Identity", "Flatten", "Reshape", "Squeeze", "Unsqueeze", "Constant", "Shape", "Dropout"};
}  // namespace

bool is_data_movement(const std::string& op_type) {
  return std::find(kDataMovement.begin(), kDataMovement.end(), op_type) != kDataMovement.end();
}

const std::string& data_movement_names() {
  static const std::string names = [] {
    std::string s;
    for (const char* op : kDataMovement) s += (s.empty() ? "" : ", ") + std::string(op);
    return s;
  }();
  return names;
}

Expected<std::vector<Value>> run_single_node(Backend& backend, const Model& model, const Node& node,
                                             const std::unordered_map<std::string, Value>& values) {
  Model one;
  one.path = model.path;
  one.opsets = model.opsets;
  one.ir_version = model.ir_version;
  one.graph.nodes = {node};
  one.graph.nodes[0].index = 0;
  std::map<std::string, Value> feeds;
  for (const auto& in : node_reads(node)) {
    auto it = values.find(in);
    if (it == values.end())
      return invalid_argument("{}: input '{}' has no value", node.label(), in);
    ValueInfo vi;
    vi.name = in;
    vi.is_tensor = it->second.is_tensor();
    one.graph.inputs.push_back(vi);
    feeds[in] = it->second;
  }
  for (const auto& out : node.outputs) {
    if (out.empty()) continue;
    ValueInfo vi;
    vi.name = out;
    one.graph.outputs.push_back(vi);
  }
  return backend.run_values(one, feeds, {});
}

std::vector<Value> outputs_by_position(const Node& node, std::vector<Value> compact) {
  std::vector<Value> by_pos(node.outputs.size());
  for (size_t i = 0, k = 0; i < node.outputs.size() && k < compact.size(); ++i) {
    if (!node.outputs[i].empty()) by_pos[i] = std::move(compact[k++]);
  }
  return by_pos;
}

}  // namespace ig

// Running one node of a model on another backend (a library backend's reference fallback, data
// movement through the reference kernels): the node becomes a one-node model over the values it
// reads.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "backends/backend.h"

namespace ig {

// The node's non-empty outputs, in order (what Backend::run_values returns).
Expected<std::vector<Value>> run_single_node(Backend& backend, const Model& model, const Node& node,
                                             const std::unordered_map<std::string, Value>& values);

// Pure data movement (no arithmetic): a library backend runs these on the reference kernels, which
// give what any library would.
bool is_data_movement(const std::string& op_type);
// Their names, comma-separated, for messages.
const std::string& data_movement_names();

// Outputs in node.outputs positions: `compact` holds one Value per non-empty output name.
std::vector<Value> outputs_by_position(const Node& node, std::vector<Value> compact);

}  // namespace ig

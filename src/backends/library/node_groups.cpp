#include "backends/library/node_groups.h"

namespace ig {

std::string covers_of(const Graph& graph, const NodeGroup& group) {
  std::string s;
  for (size_t n : group.nodes) {
    const Node& node = graph.nodes[n];
    s += (s.empty() ? "" : ",") + (node.name.empty() ? "#" + std::to_string(n) : node.name);
  }
  return s;
}

}  // namespace ig

// Nodes a library runs as one call (oneDNN fuses a chain into one primitive with post-ops). A
// group runs at the position of its last node and is reported as that node.
#pragma once

#include <string>
#include <vector>

#include "model/graph.h"

namespace ig {

struct NodeGroup {
  std::vector<size_t> nodes;  // indices into graph.nodes; the head first
};

// group_of[i] is the index of node i's group in `groups`, or -1 when node i runs alone; empty
// when nothing is grouped.
struct NodeGroups {
  std::vector<NodeGroup> groups;
  std::vector<int> group_of;
};

// "conv1,relu1" (a node without a name is written as #index): NodeReport::covers of the group.
std::string covers_of(const Graph& graph, const NodeGroup& group);

}  // namespace ig

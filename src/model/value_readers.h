// Each value's remaining readers while a graph runs node by node, so that an executor releases a
// value after its last reader instead of holding every value of the run. Shared by the reference
// executor and the library executor (oneDNN, XNNPACK, cuda).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "model/graph.h"

namespace ig {

// What each node reads (node_reads: subgraphs' implicit reads included), by node index.
inline std::vector<std::vector<std::string>> reads_by_node(const Graph& graph) {
  std::vector<std::vector<std::string>> reads;
  reads.reserve(graph.nodes.size());
  for (const auto& n : graph.nodes) reads.push_back(node_reads(n));
  return reads;
}

class ValueReaders {
 public:
  // `reads`: reads_by_node(graph), kept by the caller for as long as this lives. The graph's
  // outputs are never released.
  ValueReaders(const std::vector<std::vector<std::string>>& reads, const Graph& graph)
      : reads_(reads) {
    for (const auto& node : reads_)
      for (const auto& in : node) ++remaining_[in];
    for (const auto& out : graph.outputs) remaining_[out.name] += 1 << 20;
  }
  // Node `i` has run: `release(name)` for each value it read that no later node reads.
  template <typename Release>
  void node_done(size_t i, Release&& release) {
    for (const auto& in : reads_[i]) {
      auto it = remaining_.find(in);
      if (it != remaining_.end() && --it->second == 0) release(in);
    }
  }

 private:
  const std::vector<std::vector<std::string>>& reads_;
  std::unordered_map<std::string, int> remaining_;
};

}  // namespace ig

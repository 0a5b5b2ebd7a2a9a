// Runs a model's main graph on a library backend, node by node in order: each node on the library
// when it supports it, else (fallback=ref) on the reference kernels; data movement always on the
// reference kernels. Fused groups run at their last node, node by node when the library refuses.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "backends/library/library_backend.h"

namespace ig {

class LibraryExecutor {
 public:
  LibraryExecutor(const LibraryBackend& backend, RefBackend& ref, LibraryRun& run,
                  const Model& model, const NodeCallback& on_node)
      : backend_(backend), ref_(ref), run_(run), model_(model), on_node_(on_node), values_(run) {}
  // Initializers and feeds, then every node.
  Status run(const std::map<std::string, Value>& feeds);
  // The graph outputs in declaration order, on the host.
  Expected<std::vector<Value>> graph_outputs();

 private:
  Status run_node(const Node& node);
  Status run_group(const NodeGroup& group);
  Status run_on_reference(const Node& node, const Status& native);
  // Outputs into the run's values, after the trace has seen them.
  Status store_native(const Node& node, NativeOutputs outs, const NodeReport& report);
  void store(const Node& node, std::vector<Value> compact, const NodeReport& report);

  const LibraryBackend& backend_;
  RefBackend& ref_;
  LibraryRun& run_;
  const Model& model_;
  const NodeCallback& on_node_;
  RunValues values_;
};

}  // namespace ig

// What one run of a model on a platform yields: a verdict, the graph outputs and a per-node trace.
// The same types flow from worker processes to the coordinator and the store, so they sit below
// both.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "results/verdict.h"
#include "tensor/tensor.h"

namespace ig {

class TraceHold;  // results/trace_memory.h
struct Node;      // model/graph.h

struct TracedTensor {
  std::string value;  // ONNX value name
  std::string node;   // producing node's name ("" for graph inputs)
  std::string op_type;
  int64_t node_index = -1;  // topological position of the producing node
  uint64_t hash = 0;        // XXH3-64 of the raw bytes
  DType dtype = DType::kUndefined;
  Shape shape;
  Tensor tensor;       // undefined when capture.keep_tensors is false
  std::string covers;  // ONNX nodes a fused tensor covers, comma-separated ("" = just `node`)
  std::string note;    // what the platform did, e.g. "conv=winograd4"
  // Set in a coordinator that bounds its trace memory (results/trace_memory.h): `tensor` counted
  // against the budget, or its bytes moved to a spill file (then `tensor` is undefined).
  std::shared_ptr<const TraceHold> hold;

  bool spilled() const;
  bool has_data() const { return tensor.defined() || spilled(); }
  // The tensor, from memory or read back from the spill file (undefined when it has no data).
  Expected<Tensor> data() const;
};

// Value `value` as a trace holds it: its producing node (nullptr for a graph input), hash, dtype
// and shape, and the tensor itself when `keep`.
TracedTensor traced_value(const std::string& value, const Node* producer, Tensor tensor, bool keep);

// A node a platform refused: which node (name, op type, and its index in the main graph, -1 for a
// node of a subgraph or when the platform refused the model as a whole) and the reason it gave.
struct Rejection {
  std::string node;
  std::string op_type;  // "" when the platform did not say which node
  int64_t node_index = -1;
  std::string reason;
  bool operator==(const Rejection&) const = default;
};

struct RunResult {
  Verdict verdict = Verdict::kError;
  std::string reason;
  // With verdict unsupported: every node the platform refused, in graph order.
  std::vector<Rejection> rejections;
  std::string repro;  // a command that reproduces this run
  double seconds = 0;
  // Of `seconds`, the part spent reading, checking and preparing the model (0 when cached).
  double load_seconds = 0;
  // The library the platform ran and its version, as the library itself reports it at run time
  // (Backend::library); "" where the backend could not be made.
  std::string library;
  std::string library_version;
  // Graph outputs in declaration order, each named with its producing node by the worker.
  std::vector<TracedTensor> outputs;
  std::vector<TracedTensor> trace;  // per node, in execution order (when capture.all_layers)
};

}  // namespace ig

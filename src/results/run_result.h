// What one run of a model on a platform yields: a verdict, the graph outputs and a per-node trace.
// The same types flow from worker processes to the coordinator and the store, so they sit below
// both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace ig {

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
};

struct RunResult {
  // ok, unsupported, load-error, crash, timeout, error (see DESIGN.md "verdict")
  std::string verdict = "error";
  std::string reason;
  std::string repro;  // a command that reproduces this run
  double seconds = 0;
  std::vector<TracedTensor> outputs;  // graph outputs in declaration order
  std::vector<TracedTensor> trace;    // per node, in execution order (when capture.all_layers)
};

}  // namespace ig

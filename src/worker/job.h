// One run of a model on a platform, and what it yields: a verdict, the graph outputs and a
// per-node trace. The same types flow from worker processes to the coordinator and the store.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace ig {

struct CaptureOptions {
  bool all_layers = true;    // every node's outputs, not only the graph outputs
  bool keep_tensors = true;  // keep tensor data, not only hashes
};

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

struct RunRequest {
  std::string platform;  // spec string, e.g. "ref:acc=lanes8"
  std::string model_path;
  std::map<std::string, Tensor> inputs;
  CaptureOptions capture;
  double timeout_seconds = 300;
  // Memory budget for the model's declared sizes and each tensor; 0: default_memory_budget().
  uint64_t max_memory_bytes = 0;
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

class Backend;

// Runs the request in this process. Never throws; every failure is a verdict with a reason.
RunResult run_in_process(const RunRequest& request);

// Receives each node's traced outputs as they are produced (a worker streams them to the
// coordinator); when empty, they are collected in RunResult::trace.
using TraceSink = std::function<void(TracedTensor&&)>;
// What a worker does for each job, on the backend it built once at start.
RunResult run_with_backend(Backend& backend, const RunRequest& request, const TraceSink& sink);

// The verdict for a failure Status: "unsupported" for kUnsupported, "error" otherwise.
const char* verdict_for(const Status& st);

// The command that reproduces a run of `request`.
std::string repro_command(const RunRequest& request);

}  // namespace ig

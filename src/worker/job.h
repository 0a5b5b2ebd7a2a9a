// One run of a model on a platform: the request a worker takes, and the functions that run it
// (what it yields is results/run_result.h).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "results/run_result.h"
#include "tensor/tensor.h"

namespace ig {

struct CaptureOptions {
  bool all_layers = true;    // every node's outputs, not only the graph outputs
  bool keep_tensors = true;  // keep tensor data, not only hashes
  // A backend that traces through a second computation (ORT's executed graph) checks every traced
  // run's outputs against a plain run, not only a sample (backends/backend.h).
  bool verify_traces = false;
};

struct RunRequest {
  std::string platform;  // spec string, e.g. "ref:acc=lanes8"
  std::string model_path;
  std::map<std::string, Tensor> inputs;
  CaptureOptions capture;
  double timeout_seconds = 300;
  // Memory budget for the model's declared sizes and each tensor; 0: default_memory_budget().
  uint64_t max_memory_bytes = 0;
  // The coordinator's bound on traced tensor bytes it holds (results/trace_memory.h); sent so a
  // backend may bound its own trace too (core/process_memory.h keeps it for the worker). 0: none.
  uint64_t trace_budget_bytes = 0;
  // Only say what the platform cannot run (the nodes it refuses, then what its library refuses
  // when it loads the model), without running anything: verdict ok or unsupported, no outputs.
  bool support_only = false;
  // The `infergap run` flags that recreate the inputs (--input, --shape, --dim, --seed), for the
  // repro command; the coordinator's alone (not sent to workers).
  std::string input_flags;
};

class Backend;

// Runs the request in this process. Never throws; every failure is a verdict with a reason.
RunResult run_in_process(const RunRequest& request);

// A worker process is itself the isolation (a crash ends one run and the worker is restarted):
// it runs libonnx's checker and shape inference in place instead of in a helper process.
void set_process_is_isolated_worker(bool isolated);

// Receives each node's traced outputs as they are produced (a worker streams them to the
// coordinator); when empty, they are collected in RunResult::trace.
using TraceSink = std::function<void(TracedTensor&&)>;
// What a worker does for each job, on the backend it built once at start.
RunResult run_with_backend(Backend& backend, const RunRequest& request, const TraceSink& sink);

// The command that reproduces a run of `request`.
std::string repro_command(const RunRequest& request);

}  // namespace ig

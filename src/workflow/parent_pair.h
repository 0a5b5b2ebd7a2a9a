// A derived model (quantized, fp16, bf16) and its float parent loaded side by side for
// `infergap precision` and `infergap overflow`: checked to belong together, fed the same inputs
// (converted to each model's input types), and run on one platform in a worker.
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "inputs/inputs.h"
#include "model/graph.h"
#include "worker/worker_pool.h"
#include "workflow/work_folder.h"

namespace ig {

struct ParentPair {
  std::string derived_path, parent_path;
  onnx::ModelProto derived, parent;
  Model derived_model, parent_model;
  std::map<std::string, Tensor> parent_feeds, derived_feeds;
};

// Errors name both files: graph inputs that differ in name or shape, no value name in common
// (not a parent), a model that does not load.
Expected<ParentPair> load_parent_pair(const std::string& derived, const std::string& parent,
                                      const InputRequest& inputs);

// Runs `path` on `platform`; every traced value and output by name, the feeds included.
// `all_layers` false: the outputs alone. A run that is not ok is an error naming the model.
Expected<std::map<std::string, Tensor>> run_values(WorkerPool& pool, const std::string& platform,
                                                   const std::string& path,
                                                   const std::map<std::string, Tensor>& feeds,
                                                   bool all_layers, double timeout_seconds);

}  // namespace ig

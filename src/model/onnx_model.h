// Loading ONNX models into the graph IR, with the ONNX checker and shape inference.
#pragma once

#include <string>

#include "model/graph.h"

namespace onnx {
class ModelProto;
}

namespace ig {

struct LoadOptions {
  bool run_checker = true;
  bool infer_shapes = true;
  uint64_t max_file_bytes = uint64_t{2} << 30;  // protobuf cannot parse more than 2 GiB anyway
  int max_subgraph_depth = 32;
  // Declared tensor sizes must fit (model/limits.h); 0: default_memory_budget().
  uint64_t max_memory_bytes = 0;
  double shape_inference_timeout_seconds = 60;  // checker and inference together
  // The checker and shape inference run in a helper process (shape_inference.h), except in a
  // process that is itself isolated and restarted on a crash (a platform worker).
  bool onnx_in_this_process = false;
  // model_from_proto: the proto's main-graph initializers give up their data as they are
  // converted (load_model, whose proto is its own, does this always).
  bool release_initializer_data = false;
  // false: main-graph numeric initializers of 64 KiB and more keep their dtype and shape only
  // (Tensor::shape_only), for a process whose backend runs the model file itself (ORT).
  bool initializer_data = true;
};

// Reads, parses, checks and converts a model. Errors name the file and, where it applies, the node.
Expected<Model> load_model(const std::string& path, const LoadOptions& options = {});
// Parses bytes already in memory (base_dir resolves external data; empty forbids it).
Expected<Model> load_model_from_bytes(const std::string& bytes, const std::string& label,
                                      const std::string& base_dir, const LoadOptions& options = {});

Expected<onnx::ModelProto> read_model_proto(const std::string& path,
                                            uint64_t max_bytes = uint64_t{2} << 30);
Status save_model_proto(const onnx::ModelProto& model, const std::string& path);
// Writes a model derived from the one at `parent_path` as `file_name` beside it, so that its
// relative external data still resolves, else in the temp folder; returns where it went.
Expected<std::string> save_model_beside(const onnx::ModelProto& model,
                                        const std::string& parent_path,
                                        const std::string& file_name);
// Runs the ONNX checker; its message becomes the Status text.
Status check_model_proto(const onnx::ModelProto& model);
Expected<Model> model_from_proto(onnx::ModelProto& proto, const std::string& label,
                                 const std::string& base_dir, const LoadOptions& options);

}  // namespace ig

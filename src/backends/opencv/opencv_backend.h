// The `opencv` platform: OpenCV DNN's ONNX importer and CPU layers. Per-layer outputs come from
// forward(outs, layerNames) and are mapped back to ONNX value names (the importer names a layer
// after its node's first output).
#pragma once

#include <string>
#include <vector>

#include "backends/backend.h"

namespace ig {

struct OpencvOptions {
  std::vector<std::string> disable;  // OpenCV CPU feature names (OPENCV_CPU_DISABLE)
  int threads = 1;
};

class OpencvBackend : public Backend {
 public:
  explicit OpencvBackend(OpencvOptions options) : options_(std::move(options)) {}
  std::string name() const override { return "opencv"; }
  LibraryVersion library() const override;
  // OpenCV decides what it can import only when it reads the whole model: unsupported layers
  // surface from run_values as kUnsupported with the importer's message.
  Status supports(const Node& node, const Model& model) const override;
  // Runs the importer on the model.
  Status check_loads(const Model& model) override;
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) override;

 private:
  OpencvOptions options_;
};

// ONNX bytes OpenCV's importer accepts for `path`, with gaps worked around where the computation
// stays the same (an Identity of an initializer becomes a copy of that initializer).
Expected<std::string> opencv_compatible_onnx(const std::string& path);

}  // namespace ig

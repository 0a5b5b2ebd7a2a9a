// The node.js process that hosts ONNX Runtime for the ort backend (runner.js): onnxruntime-node
// ships ORT as a shared library with no C headers, so the worker drives it through this runner.
#pragma once

#include <sys/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"

namespace ig {

class OrtRunner {
 public:
  struct Reply {
    nlohmann::json header;
    std::string body;
  };
  // Starts the runner (`node runner.js MODULES_DIR`, or `python runner.py`) and checks that its
  // ONNX Runtime loads.
  static Expected<std::unique_ptr<OrtRunner>> start(std::vector<std::string> argv);
  ~OrtRunner();
  OrtRunner(const OrtRunner&) = delete;
  OrtRunner& operator=(const OrtRunner&) = delete;

  // One request, one reply. ORT's own errors are kInternal carrying ORT's message verbatim.
  Expected<Reply> call(const nlohmann::json& header, const std::string& body = "");
  const std::string& version() const { return version_; }

 private:
  OrtRunner() = default;
  pid_t pid_ = -1;
  int sock_ = -1;
  std::string version_;
};

}  // namespace ig

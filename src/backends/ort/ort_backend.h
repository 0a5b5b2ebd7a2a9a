// ort: ONNX Runtime (npm onnxruntime-node) as a platform, e.g. `ort:opt=all,threads=1`.
// Knobs: opt = disabled | basic | extended | all (graph optimization level: eager versus
// compiled), threads = intra-op threads. Per-layer capture runs a second session on a copy of
// the model whose every intermediate value is a graph output; the graph outputs themselves always
// come from the unmodified model (exposing a value blocks fusions across it; see README).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "backends/backend.h"
#include "backends/ort/ort_runner.h"

namespace ig {

struct OrtOptions {
  std::string opt = "all";
  int threads = 1;
};

class OrtBackend : public Backend {
 public:
  OrtBackend(OrtOptions options, std::unique_ptr<OrtRunner> runner)
      : options_(std::move(options)), runner_(std::move(runner)) {}
  std::string name() const override { return "ort"; }
  // ORT decides at session creation; its refusal is reported by run_values as kUnsupported.
  Status supports(const Node&, const Model&) const override { return Status::Ok(); }
  // Creates the session (kept for the runs that follow).
  Status check_loads(const Model& model) override { return session(model, false).status(); }
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) override;

 private:
  // Loads (once per model file version) the plain or the traced session; returns its key.
  Expected<std::string> session(const Model& model, bool traced);
  Expected<std::map<std::string, Tensor>> run_session(const std::string& key,
                                                      const std::map<std::string, Value>& feeds,
                                                      const std::vector<std::string>& fetch);

  OrtOptions options_;
  std::unique_ptr<OrtRunner> runner_;
  std::map<std::string, std::string> sessions_;  // model identity -> runner session key
};

// Writes a copy of `model_path` whose graph outputs are followed by every main-graph node output
// that is a tensor, returning the names of those outputs.
Expected<std::vector<std::string>> write_traced_model(const Model& model,
                                                      const std::string& model_path,
                                                      const std::string& out_path);

}  // namespace ig

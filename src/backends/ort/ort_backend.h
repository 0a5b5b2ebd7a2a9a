// ort: ONNX Runtime (npm onnxruntime-node) as a platform, e.g. `ort:opt=all,threads=1`.
// Knobs: opt = disabled | basic | extended | all (graph optimization level: eager versus
// compiled), threads = intra-op threads. Per-layer capture reads the graph ORT executes: the
// session saves its optimized graph, a second session runs that graph as saved (no further
// optimization) with its values exposed, mapped back onto the original nodes
// (ort_executed_graph.h); the run's graph outputs must be bit-identical to the plain session's.
// Where that fails, an unfused copy of the model is traced instead and every traced value says so.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "backends/backend.h"
#include "backends/ort/ort_executed_graph.h"
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
  Status check_loads(const Model& model) override { return session(model, Kind::kPlain).status(); }
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) override;

 private:
  enum class Kind { kPlain, kTracedCopy, kExecuted };
  // Loads (once per model file version) a session of `kind`; returns its key. kPlain saves the
  // optimized graph to `save_optimized` when that is not ""; kExecuted loads `load_from`.
  Expected<std::string> session(const Model& model, Kind kind,
                                const std::string& save_optimized = "",
                                const std::string& load_from = "");
  struct Executed {
    std::string key;  // the session running the optimized graph with its values exposed
    ExecutedPlan plan;
  };
  // The executed-graph session (loading the plain session again to save its graph); an error
  // says why the optimized graph cannot be traced.
  Expected<const Executed*> executed(const Model& model);
  // Traces the run through the executed graph; false (with *why) when its graph outputs are not
  // the plain session's, bit for bit.
  Expected<bool> trace_executed(const Model& model, const std::map<std::string, Value>& feeds,
                                const std::map<std::string, Tensor>& plain,
                                const NodeCallback& on_node, std::string* why);
  Expected<std::map<std::string, Tensor>> trace_copy(const Model& model,
                                                     const std::map<std::string, Value>& feeds,
                                                     const NodeCallback& on_node,
                                                     const std::string& note);
  Expected<std::map<std::string, Tensor>> run_session(const std::string& key,
                                                      const std::map<std::string, Value>& feeds,
                                                      const std::vector<std::string>& fetch);

  OrtOptions options_;
  std::unique_ptr<OrtRunner> runner_;
  std::map<std::string, std::string> sessions_;         // model identity -> runner session key
  std::set<std::string> saved_;                         // plain sessions that saved their graph
  std::map<std::string, Expected<Executed>> executed_;  // by model identity
  int next_key_ = 0;                                    // the runner's name for the next session
};

// Writes a copy of `model_path` whose graph outputs are followed by every main-graph node output
// that is a tensor, returning the names of those outputs.
Expected<std::vector<std::string>> write_traced_model(const Model& model,
                                                      const std::string& model_path,
                                                      const std::string& out_path);

}  // namespace ig

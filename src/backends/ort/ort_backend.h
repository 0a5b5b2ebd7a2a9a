// ort: ONNX Runtime (npm onnxruntime-node) as a platform, e.g. `ort:opt=all,threads=1`.
// Knobs: opt = disabled | basic | extended | all (graph optimization level: eager versus
// compiled), threads = intra-op threads. Per-layer capture reads the graph ORT executes: the
// session saves its optimized graph, a second session runs that graph as saved (no further
// optimization) with its values exposed, mapped back onto the original nodes
// (ort_executed_graph.h); the run's graph outputs must be bit-identical to the plain session's.
// Where that fails, an unfused copy of the model is traced instead and every traced value says so.
// The plain session runs beside it on a sample of traced runs (backends/backend.h:
// verify_every_trace): on the others the executed graph's outputs are the run's, and the note of
// the node producing each (run_note() for an output no traced node carries) says they were not
// checked.
// Memory: the optimized graph is saved with its weights in a file beside it (the worker edits
// only the graph); traced values come from as few runs as half the trace budget allows,
// each exposing a chunk of them; and the runner keeps its sessions loaded (a run costs no load)
// unless the model's weights pass kOneSessionWeightBytes, where it holds one session at a time
// (each holds the weights), so a study of ViT-B/16 (344 MB) keeps node near one copy of them.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "backends/backend.h"
#include "backends/ort/ort_executed_graph.h"
#include "backends/runner_process.h"

namespace ig {

struct OrtOptions {
  std::string opt = "all";
  int threads = 1;
  std::string version = "1.30";  // the release, and with it the runner (platform/bindings/ort.cpp)
};

class OrtBackend : public Backend {
 public:
  OrtBackend(OrtOptions options, std::unique_ptr<RunnerProcess> runner)
      : options_(std::move(options)), runner_(std::move(runner)) {}
  ~OrtBackend() override;
  std::string name() const override { return "ort"; }
  LibraryVersion library() const override { return {"ONNX Runtime", runner_->version()}; }
  // ORT decides at session creation; its refusal is reported by run_values as kUnsupported.
  Status supports(const Node&, const Model&) const override { return Status::Ok(); }
  // Creates the session (kept for the runs that follow).
  Status check_loads(const Model& model) override { return session(model, Kind::kPlain).status(); }
  // ORT reads the model file; the worker's Model serves the mapping (names, dtypes, shapes).
  bool reads_initializers() const override { return false; }
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) override;
  // Set when the last run's outputs came from the executed graph unchecked: the note for a graph
  // output the trace does not carry.
  std::string run_note() const override { return run_note_; }

  // The most bytes of traced values one run of the executed graph exposes (half the trace budget
  // where one is given): more are exposed by further graphs, each run in turn. ORT,
  // node and the worker each hold a run's outputs at once: all of ViT-B/16's took node 330 MB
  // past its weights.
  static constexpr uint64_t kMaxFetchBytes = 128ull << 20;
  // Past this many bytes of weights, the runner holds one session at a time, and a run exposes
  // at most kLargeModelFetchBytes: each session holds the weights twice (as loaded and prepacked),
  // and two sessions of ConvNeXt-tiny (114 MB) took node to 609 MB.
  static constexpr uint64_t kOneSessionWeightBytes = 96ull << 20;
  static constexpr uint64_t kLargeModelFetchBytes = 8ull << 20;

 private:
  enum class Kind { kPlain, kTracedCopy, kExecuted };
  // The runner's session of `kind` for the model (kExecuted: the graph at `load_from`), loaded
  // in place of the one it held before.
  Expected<std::string> session(const Model& model, Kind kind, const std::string& load_from = "");
  // Drops the sessions of other versions of the model file, and all of them for a model whose
  // weights pass kOneSessionWeightBytes, before another is loaded.
  void make_room(const Model& model);
  // This backend's private folder for the files it gives ORT (made on first use).
  Expected<std::string> private_dir();
  // Has ORT save its optimized graph of the model at `graph` in private_dir(), the weights in a
  // file beside it.
  Status save_optimized(const Model& model, const std::string& graph);
  struct Chunk {
    size_t first, last;  // the nodes [first, last) whose values it exposes
    std::string path;    // the optimized graph exposing them, in private_dir()
  };
  struct Executed {
    ExecutedPlan plan;
    std::vector<Chunk> chunks;  // one run each, in node order
  };
  // The executed graph's plan and file; an error says why the optimized graph cannot be traced.
  Expected<const Executed*> executed(const Model& model);
  // Traces the run through the executed graph; false (with *why) when its graph outputs are not
  // the plain session's in *outputs, bit for bit. With *outputs empty (an unchecked run) they are
  // filled with the executed graph's own.
  Expected<bool> trace_executed(const Model& model, const std::map<std::string, Value>& feeds,
                                std::map<std::string, Tensor>* outputs, const NodeCallback& on_node,
                                std::string* why);
  // Whether this traced run's outputs are checked against a plain run (counts the run).
  bool check_this_trace(const Model& model, const std::map<std::string, Value>& feeds);
  Expected<std::map<std::string, Tensor>> trace_copy(const Model& model,
                                                     const std::map<std::string, Value>& feeds,
                                                     const NodeCallback& on_node,
                                                     const std::string& note);
  Expected<std::map<std::string, Tensor>> run_session(const std::string& key,
                                                      const std::map<std::string, Value>& feeds,
                                                      const std::vector<std::string>& fetch);

  OrtOptions options_;
  std::unique_ptr<RunnerProcess> runner_;
  struct Loaded {
    std::string identity;  // of the model file version it was loaded for
    std::string key;       // the runner's name for it
  };
  std::map<std::string, Loaded> loaded_;  // the sessions the runner holds, by kind and file
  std::string dir_;
  std::map<std::string, Expected<Executed>> executed_;  // by model identity
  int next_key_ = 0;                                    // the runner's name for the next session
  // Traced runs so far, by model file version and input shapes; the keys whose check failed are
  // checked on every run after it.
  std::map<std::string, int64_t> traced_runs_;
  std::set<std::string> check_always_;
  std::string run_note_;
};

// Writes a copy of `model_path` whose graph outputs are followed by every main-graph node output
// that is a tensor onnxruntime-node carries (ort_node_carries), returning the names of those
// outputs.
Expected<std::vector<std::string>> write_traced_model(const Model& model,
                                                      const std::string& model_path,
                                                      const std::string& out_path);

}  // namespace ig

// What every platform implements: say what it can run, and run a model with a per-node trace.
#pragma once

#include <concepts>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/value.h"
#include "model/graph.h"

namespace ig {

// What a backend says about a reported node beyond its outputs.
struct NodeReport {
  // ONNX nodes (names, comma-separated, in order) that the reported outputs cover when the backend
  // fused several nodes into one computation; "" means just the reported node. Fused-away nodes
  // are not reported on their own.
  std::string covers;
  std::string note;  // what the platform did, e.g. "jit:avx2" or "fallback=ref: <reason>"
};

// Called after every node (or fused group, reported as its last node) with its outputs, in
// execution order. This is the trace hook. Accepts callables taking (node, outputs) or
// (node, outputs, report), so callers that do not care about fusion stay unchanged.
class NodeCallback {
 public:
  using Fn = std::function<void(const Node&, const std::vector<Value>&, const NodeReport&)>;
  NodeCallback() = default;
  NodeCallback(std::nullptr_t) {}  // NOLINT: implicit, as std::function's
  template <typename F>
  requires(!std::same_as<std::remove_cvref_t<F>, NodeCallback> &&
           std::invocable<F&, const Node&, const std::vector<Value>&, const NodeReport&>)
      NodeCallback(F f)
      : fn_(std::move(f)) {}  // NOLINT: implicit by design
  template <typename F>
  requires(!std::same_as<std::remove_cvref_t<F>, NodeCallback> &&
           !std::invocable<F&, const Node&, const std::vector<Value>&, const NodeReport&> &&
           std::invocable<F&, const Node&, const std::vector<Value>&>)
      NodeCallback(F f)  // NOLINT: implicit by design
      : fn_([f = std::move(f)](const Node& n, const std::vector<Value>& o,
                               const NodeReport&) mutable { f(n, o); }) {}
  explicit operator bool() const { return static_cast<bool>(fn_); }
  void operator()(const Node& node, const std::vector<Value>& outputs,
                  const NodeReport& report = {}) const {
    if (fn_) fn_(node, outputs, report);
  }

 private:
  Fn fn_;
};

// The library a backend runs, as it names itself at run time ("oneDNN", "3.1.0").
struct LibraryVersion {
  std::string library;
  std::string version;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Asked of the loaded library, never typed in; {} where the library does not say.
  virtual LibraryVersion library() const { return {}; }
  // Ok, or kUnsupported with a reason a user can read.
  virtual Status supports(const Node& node, const Model& model) const = 0;
  // Every node of the model (subgraphs included) this platform cannot run, with reasons.
  std::vector<std::pair<const Node*, Status>> unsupported_nodes_of(const Model& model) const;
  // What the backend decides only from the whole model (ORT's session, OpenCV's importer, the
  // reference backend's opsets), found without running it: Ok, or kUnsupported with the refusal.
  // false for a backend that runs the model file itself and never reads the weights of the
  // Model it is given (only their dtypes and shapes): its worker loads them without their data.
  virtual bool reads_initializers() const { return true; }
  virtual Status check_loads(const Model& model) { return Status::Ok(); }
  // Runs the main graph; returns the graph outputs in declaration order. Feeds may be tensors,
  // sequences or empty optionals, as the graph's inputs declare.
  virtual Expected<std::vector<Value>> run_values(const Model& model,
                                                  const std::map<std::string, Value>& feeds,
                                                  const NodeCallback& on_node) = 0;
  // What the platform did in its last run as a whole, in words, where the outputs alone do not
  // say it (OpenVINO: the precisions its layers ran in); "" for nothing to say.
  virtual std::string run_note() const { return ""; }
  // The common case: every feed is a tensor.
  Expected<std::vector<Value>> run(const Model& model, const std::map<std::string, Tensor>& feeds,
                                   const NodeCallback& on_node);
};

// Whether a backend that traces a run through a second computation (ORT: its executed graph with
// every value exposed) checks each traced run's outputs against a plain run. Off (the default):
// the first traced run per model file and input shapes, then every kTraceCheckEvery-th, and every
// run after a check failed; a run left unchecked says so in the note of the traced node producing
// each graph output (in run_note() where none does). Process-wide, like the trace budget: the
// worker sets it per request.
void set_verify_every_trace(bool on);
bool verify_every_trace();
inline constexpr int kTraceCheckEvery = 8;

// Checks feeds against the graph's declared inputs (names, kinds, dtypes, static dims); an error
// names the input and both types.
Status check_feeds(const Model& model, const std::map<std::string, Value>& feeds);

}  // namespace ig

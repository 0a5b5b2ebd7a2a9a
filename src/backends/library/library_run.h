// One run of a model on a library backend, as the shared executor (library_executor.h) sees it:
// the run's values, and the hooks through which it asks the library to run nodes.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backends/library/node_groups.h"
#include "backends/value.h"
#include "model/graph.h"
#include "model/qdq_group.h"

namespace ig {

class LibraryRun;

// What a library node (or fused group) returns.
struct NativeOutputs {
  // The non-empty outputs in order, on the host; empty when the library keeps them itself (cuda's
  // device tensors), LibraryRun::to_host copying one when it is needed.
  std::vector<Value> host;
  std::string note;  // NodeReport::note, e.g. "brgconv:avx512_core" or "algo=fft (autotune)"
};

// The values of one run by name. A value lives on the host, or only in the library until
// something needs it there: the trace, a node run by the reference kernels, a graph output, or a
// library node that reads its elements on the host.
class RunValues {
 public:
  explicit RunValues(LibraryRun& library) : library_(library) {}
  void set(const std::string& name, Value v);
  // The library holds `name`; no host copy yet.
  void set_native(const std::string& name);
  // No node reads `name` any more: its host copy goes (a library's own copy is the library's).
  void release(const std::string& name) { host_.erase(name); }
  // nullptr when nothing has that name; a value only the library holds is copied to the host.
  Expected<const Value*> host(const std::string& name);
  // What `node` reads as input `name`, on the host; the errors name the node.
  Expected<const Tensor*> input(const Node& node, const std::string& name);
  // Every input of `node` in order, nullptr for a missing optional one.
  Expected<std::vector<const Tensor*>> inputs(const Node& node);
  const std::unordered_map<std::string, Value>& on_host() const { return host_; }

 private:
  LibraryRun& library_;
  std::unordered_map<std::string, Value> host_;
  std::unordered_set<std::string> native_;  // held only by the library
};

// The run's host values as a lookup, else `initializers` (initializers_of the model, made once a
// run): an int8 group reads the scale and zero point of a DequantizeLinear outside it (its output
// shared), which has run, and whose inputs the executor may have released.
TensorLookup host_or_initializer(RunValues& values, TensorLookup initializers);

// What differs between libraries within one run. The executor owns everything else: support,
// the reference fallback, notes, the trace and the graph's values.
class LibraryRun {
 public:
  virtual ~LibraryRun() = default;
  // Runs a node the library supports (LibraryBackend::native_support is Ok; not data movement).
  // kUnsupported: the node falls back to the reference kernels when the platform allows it.
  virtual Expected<NativeOutputs> run_node(const Node& node, RunValues& values) = 0;
  // Nodes to run as one call each (fusion); by default none.
  virtual const NodeGroups& groups() const;
  // The outputs of the group's last node. Any error: the executor runs the nodes one by one.
  virtual Expected<NativeOutputs> run_group(const NodeGroup& group, RunValues& values);
  // A host copy of a value that run_node kept.
  virtual Expected<Value> to_host(const std::string& name);
  // `node` ran on the reference kernels (fallback or data movement); its outputs are on the host.
  virtual void ran_on_reference(const Node& node);
  // The run's last word given its nodes' status `st` (wait for the device, write logs).
  virtual Status finish(Status st) { return st; }
};

}  // namespace ig

// Reference-backend kernels: one function per operator (family), registered by domain, op type and
// opset range; the first registration whose range contains the model's opset runs the node.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/op_table.h"
#include "backends/ref/numerics.h"
#include "backends/value.h"
#include "model/graph.h"

namespace ig {

class KernelContext;
using KernelFn = Status (*)(KernelContext& ctx);
// The shared table shape (backends/op_table.h); its optional check says Ok or kUnsupported with a
// reason ("Conv with auto_pad=VALID and ...").
using KernelDef = OpEntry<KernelFn>;

class KernelRegistry {
 public:
  static KernelRegistry& global();
  void add(KernelDef def);
  // Ok with the kernel, or kUnsupported explaining why none fits.
  Expected<const KernelDef*> find(const std::string& domain, const std::string& op_type,
                                  int64_t opset) const;
  const std::vector<KernelDef>& all() const { return defs_; }

 private:
  std::vector<KernelDef> defs_;
};

struct KernelRegistrar {
  explicit KernelRegistrar(KernelDef def) { KernelRegistry::global().add(std::move(def)); }
};

#define IG_KERNEL_REGISTRAR_NAME(line) IG_CONCAT(ig_kernel_registrar_, line)
// IG_REGISTER_KERNEL("", "Relu", 6, kMaxOpset, relu_kernel[, check_fn])
#define IG_REGISTER_KERNEL(domain, op, since, until, ...)                   \
  static const ::ig::KernelRegistrar IG_KERNEL_REGISTRAR_NAME(__COUNTER__)( \
      ::ig::KernelDef{domain, op, since, until, __VA_ARGS__})

// Runs a subgraph (If/Loop/Scan bodies) in a scope that sees the enclosing values.
using SubgraphRunner = std::function<Expected<std::vector<Value>>(
    const Graph& graph, const std::vector<Value>& inputs)>;

class KernelContext {
 public:
  KernelContext(const Node& node, int64_t opset, std::vector<const Value*> inputs,
                const Numerics& numerics, SubgraphRunner subgraphs)
      : node(node),
        opset(opset),
        numerics(numerics),
        inputs_(std::move(inputs)),
        outputs_(node.outputs.size()),
        subgraphs_(std::move(subgraphs)) {}

  const Node& node;
  const int64_t opset;
  const Numerics& numerics;

  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return outputs_.size(); }
  bool has_input(size_t i) const {
    return i < inputs_.size() && inputs_[i] && inputs_[i]->present();
  }
  // The tensor at input i; throws (-> error naming the node) when absent or not a tensor.
  const Tensor& input(size_t i) const;
  const Value& input_value(size_t i) const;
  // Output i is wanted by the graph (not an empty optional output name).
  bool output_wanted(size_t i) const { return i < node.outputs.size() && !node.outputs[i].empty(); }
  // Allocates output i (zero-filled) and returns it.
  Tensor& output(size_t i, DType dtype, Shape shape);
  void set_output(size_t i, Tensor t);
  void set_output_value(size_t i, Value v);
  std::vector<Value>& outputs() { return outputs_; }
  // Records what this node actually did (e.g. the convolution algorithm used); the executor passes
  // it to the trace hook as NodeReport::note.
  void set_note(std::string note) { note_ = std::move(note); }
  const std::string& note() const { return note_; }
  Expected<std::vector<Value>> run_subgraph(const Graph& graph,
                                            const std::vector<Value>& inputs) const {
    return subgraphs_(graph, inputs);
  }
  // Error helpers that name the node.
  template <typename... Args>
  Status fail(fmt::format_string<Args...> f, Args&&... args) const {
    return invalid_argument("{}: {}", node.label(), fmt::format(f, std::forward<Args>(args)...));
  }
  template <typename... Args>
  Status unsupported_here(fmt::format_string<Args...> f, Args&&... args) const {
    return unsupported("{}: {}", node.label(), fmt::format(f, std::forward<Args>(args)...));
  }

 private:
  std::vector<const Value*> inputs_;
  std::vector<Value> outputs_;
  SubgraphRunner subgraphs_;
  std::string note_;
};

}  // namespace ig

#include "backends/ref/ref_backend.h"

#include "backends/ref/numerics/precision.h"

#include <unordered_map>

#include "backends/ref/numerics/ftz.h"
#include "backends/ref/qdq_groups.h"
#include "backends/ref/ref_opsets.h"
#include "model/value_readers.h"

namespace ig {

namespace {

// Values visible while running one graph; subgraphs look outward through `parent`. A graph's
// initializers are not copied in: each is brought in when a node reads it (and, under the dtype
// knob, converted then), so an fp64 run never holds a second, wider copy of all the weights.
struct Scope {
  std::unordered_map<std::string, Value> values;
  const std::map<std::string, Tensor>* initializers = nullptr;
  const Scope* parent = nullptr;
  struct Found {
    const Value* value = nullptr;
    const Tensor* initializer = nullptr;
  };
  // Values before initializers of the same graph: a feed overrides an initializer's default.
  Found find(const std::string& name) const {
    for (const Scope* s = this; s; s = s->parent) {
      if (auto it = s->values.find(name); it != s->values.end()) return {&it->second, nullptr};
      if (!s->initializers) continue;
      if (auto it = s->initializers->find(name); it != s->initializers->end())
        return {nullptr, &it->second};
    }
    return {};
  }
};

class Executor {
 public:
  Executor(const Model& model, const Numerics& numerics) : model_(model), numerics_(numerics) {}

  // `plan`: the main graph's qdq=int groups (qdq_groups.h), nullptr to run every node as written.
  Expected<std::vector<Value>> run_graph(const Graph& graph, Scope& scope,
                                         const NodeCallback* on_node,
                                         const IntKernelPlan* plan = nullptr) {
    scope.initializers = &graph.initializers;
    // Intermediates are freed as soon as their last reader has run.
    ValueReaders readers(plan ? plan->reads : reads_of(graph), graph);

    for (size_t node_index = 0; node_index < graph.nodes.size(); ++node_index) {
      const int role = plan ? plan->role[node_index] : -1;
      if (role == -2) continue;  // inside a group, which runs at its QuantizeLinear's place
      const IntKernelGroup* group = role >= 0 ? &plan->groups[static_cast<size_t>(role)] : nullptr;
      const Node& node = group ? group->fused : graph.nodes[node_index];
      const int64_t opset = model_.opset_for(node.domain);
      KernelFn run = group ? group->kernel : nullptr;
      const auto at = static_cast<int64_t>(node.index);
      if (!group) {
        auto def = KernelRegistry::global().find(node.domain, node.op_type, opset);
        if (!def.ok()) return def.status().with_context(node.label()).at_node(at);
        if ((*def)->check) {
          Status st = (*def)->check(node, model_);
          if (!st.ok()) return st.with_context(node.label()).at_node(at);
        }
        run = (*def)->run;
      }
      std::vector<const Value*> inputs;
      inputs.reserve(node.inputs.size());
      std::vector<Value> brought_in;  // initializers this node reads, for this node only
      brought_in.reserve(node.inputs.size());
      for (const auto& in : node.inputs) {
        if (in.empty()) {
          inputs.push_back(nullptr);
          continue;
        }
        const Value* v = resolve(scope, in, brought_in);
        if (!v) return invalid_argument("{}: input '{}' has no value", node.label(), in);
        inputs.push_back(v);
      }
      Scope* current = &scope;
      SubgraphRunner sub = [this, current](const Graph& g, const std::vector<Value>& sub_inputs) {
        return run_subgraph(g, *current, sub_inputs);
      };
      KernelContext ctx(node, opset, std::move(inputs), numerics_, sub);
      Status st;
      try {
        NumericsScope numerics_scope(numerics_);
        st = run(ctx);
      } catch (const StatusError& e) {
        st = e.status();
      } catch (const std::bad_alloc&) {
        st = resource_exhausted("out of memory");
      } catch (const std::exception& e) {
        st = internal_error("{}", e.what());
      }
      if (!st.ok()) {
        const std::string& msg = st.message();
        // Kernels usually name the node already; add it where they did not.
        if (msg.rfind(node.label(), 0) != 0) st = st.with_context(node.label());
        return st.at_node(at);
      }
      auto& outs = ctx.outputs();
      // Ops that create floating tensors of a fixed type (Constant value_float, RandomUniform, ...)
      // are brought into the emulated precision too.
      if (numerics_.dtype != DType::kFloat32) {
        for (auto& v : outs) convert_float_value(v, numerics_.dtype);
      }
      for (auto& out : outs) out = ftz(std::move(out));
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (node.outputs[i].empty()) continue;
        if (!outs[i].present() && outs[i].kind != Value::Kind::kOptionalNone) {
          return internal_error("{}: kernel produced no value for output '{}'", node.label(),
                                node.outputs[i]);
        }
      }
      if (on_node && *on_node) {
        if (group) {
          (*on_node)(*group->report_as, outs,
                     NodeReport{group->covers, "qdq=int: " + node.op_type +
                                                   (ctx.note().empty() ? "" : "; " + ctx.note())});
        } else {
          (*on_node)(node, outs, NodeReport{"", ctx.note()});
        }
      }
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (!node.outputs[i].empty()) scope.values[node.outputs[i]] = std::move(outs[i]);
      }
      readers.node_done(node_index, [&](const std::string& in) { scope.values.erase(in); });
    }
    std::vector<Value> results;
    std::vector<Value> brought_in;
    brought_in.reserve(graph.outputs.size());
    for (const auto& out : graph.outputs) {
      const Value* v = resolve(scope, out.name, brought_in);
      if (!v) return invalid_argument("graph output '{}' is never produced", out.name);
      results.push_back(*v);
    }
    return results;
  }

  // The value of `name`; an initializer is brought in (flushed, converted) into `brought_in`,
  // whose capacity the caller reserved so that earlier pointers stay valid.
  const Value* resolve(const Scope& scope, const std::string& name,
                       std::vector<Value>& brought_in) {
    const auto found = scope.find(name);
    if (found.value || !found.initializer) return found.value;
    Value v = Value::of(*found.initializer);
    if (numerics_.dtype != DType::kFloat32) convert_float_value(v, numerics_.dtype);
    brought_in.push_back(ftz(std::move(v)));
    return &brought_in.back();
  }

  // ftz=on: values entering a graph (feeds, initializers) and node outputs lose their denormals.
  Value ftz(Value v) const { return numerics_.ftz ? flush_denormals(v) : v; }

  Expected<std::vector<Value>> run_subgraph(const Graph& g, const Scope& parent,
                                            const std::vector<Value>& inputs) {
    if (inputs.size() > g.inputs.size()) {
      return invalid_argument("subgraph '{}' takes {} inputs, given {}", g.name, g.inputs.size(),
                              inputs.size());
    }
    Scope scope;
    scope.parent = &parent;
    for (size_t i = 0; i < inputs.size(); ++i) scope.values[g.inputs[i].name] = inputs[i];
    return run_graph(g, scope, nullptr);
  }

 private:
  // Per graph, per node (by index): the values it reads. Cached because loop bodies run many times.
  const std::vector<std::vector<std::string>>& reads_of(const Graph& graph) {
    auto it = reads_cache_.find(&graph);
    if (it != reads_cache_.end()) return it->second;
    return reads_cache_.emplace(&graph, reads_by_node(graph)).first->second;
  }
  std::unordered_map<const Graph*, std::vector<std::vector<std::string>>> reads_cache_;
  const Model& model_;
  const Numerics& numerics_;
};

}  // namespace

Status RefBackend::supports(const Node& node, const Model& model) const {
  auto def = KernelRegistry::global().find(node.domain, node.op_type, model.opset_for(node.domain));
  if (!def.ok()) return def.status();
  return (*def)->check ? (*def)->check(node, model) : Status::Ok();
}

Status RefBackend::check_loads(const Model& model) {
  Status st = check_ref_opsets(model);
  return st.ok() ? st : Status(StatusCode::kUnsupported, st.message());
}

Expected<std::vector<Value>> RefBackend::run_values(const Model& model,
                                                    const std::map<std::string, Value>& feeds,
                                                    const NodeCallback& on_node) {
  IG_RETURN_IF_ERROR(check_feeds(model, feeds));
  // dtype knob: the whole model runs in the emulated precision (see numerics/precision.h).
  const bool convert = numerics_.dtype != DType::kFloat32;
  const Model converted = convert ? convert_model_precision(model, numerics_.dtype) : Model{};
  const Model& run_model = convert ? converted : model;
  Executor exec(run_model, numerics_);
  const IntKernelPlan plan =
      numerics_.quant.integer_groups ? plan_int_kernels(run_model) : IntKernelPlan{};
  Scope scope;
  for (const auto& [name, v] : feeds) {
    Value value = v;
    if (convert) convert_float_value(value, numerics_.dtype);
    scope.values[name] = exec.ftz(std::move(value));
  }
  auto result = exec.run_graph(run_model.graph, scope, &on_node, plan.empty() ? nullptr : &plan);
  if (!result.ok()) return result.status().with_context(model.path);
  return result;
}

}  // namespace ig

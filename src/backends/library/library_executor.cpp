#include "backends/library/library_executor.h"

#include "backends/single_node.h"
#include "model/value_readers.h"

namespace ig {

Status LibraryExecutor::run(const std::map<std::string, Value>& feeds) {
  for (const auto& [name, t] : model_.graph.initializers) values_.set(name, Value::of(t));
  for (const auto& [name, v] : feeds) values_.set(name, v);
  const Graph& g = model_.graph;
  const auto reads = reads_by_node(g);
  ValueReaders readers(reads, g);
  auto done = [&](size_t n) {
    readers.node_done(n, [&](const std::string& in) { values_.release(in); });
  };
  const NodeGroups& plan = run_.groups();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const int gi = plan.group_of.empty() ? -1 : plan.group_of[i];
    if (gi < 0) {
      // Who failed travels as a fact (Status::node) to the run's rejection.
      IG_RETURN_IF_ERROR(run_node(g.nodes[i]).at_node(static_cast<int64_t>(i)));
      done(i);
    } else if (plan.groups[gi].nodes.back() == i) {
      IG_RETURN_IF_ERROR(run_group(plan.groups[gi]));
      // A fused group's reads count when the group has run.
      for (size_t member : plan.groups[gi].nodes) done(member);
    }
  }
  return Status::Ok();
}

Expected<std::vector<Value>> LibraryExecutor::graph_outputs() {
  std::vector<Value> results;
  for (const auto& out : model_.graph.outputs) {
    auto v = values_.host(out.name);
    if (!v.ok()) return v.status().with_context(model_.path);
    if (!*v) return invalid_argument("graph output '{}' is never produced", out.name);
    results.push_back(**v);
  }
  return results;
}

Status LibraryExecutor::run_node(const Node& node) {
  Status native = backend_.native_support(node, model_);
  if (native.ok() && !is_data_movement(node.op_type)) {
    auto r = run_.run_node(node, values_);
    if (r.ok()) {
      const NodeReport report{"", r->note};
      return store_native(node, std::move(*r), report);
    }
    native = r.status();
    if (native.code() != StatusCode::kUnsupported || !backend_.fallback_ref()) return native;
  } else if (!native.ok() && !backend_.fallback_ref()) {
    return native;
  }
  return run_on_reference(node, native);
}

Status LibraryExecutor::run_on_reference(const Node& node, const Status& native) {
  // The reference kernels read host values: copy those only the library holds.
  for (const auto& in : node_reads(node)) IG_RETURN_IF_ERROR(values_.host(in).status());
  auto outs = run_single_node(ref_, model_, node, values_.on_host());
  if (!outs.ok()) return outs.status();
  run_.ran_on_reference(node);
  const std::string note =
      native.ok() ? "data movement (reference kernel)" : "fallback=ref: " + native.message();
  store(node, std::move(*outs), {"", note});
  return Status::Ok();
}

Status LibraryExecutor::run_group(const NodeGroup& group) {
  auto r = run_.run_group(group, values_);
  // Libraries refuse some groups (oneDNN: post-op combinations, broadcast shapes, ISA).
  if (!r.ok()) {
    for (size_t n : group.nodes)
      IG_RETURN_IF_ERROR(run_node(model_.graph.nodes[n]).at_node(static_cast<int64_t>(n)));
    return Status::Ok();
  }
  const NodeReport report{covers_of(model_.graph, group), "fused: " + r->note};
  return store_native(model_.graph.nodes[group.nodes.back()], std::move(*r), report);
}

Status LibraryExecutor::store_native(const Node& node, NativeOutputs outs,
                                     const NodeReport& report) {
  if (!outs.host.empty()) {
    store(node, std::move(outs.host), report);
    return Status::Ok();
  }
  // Kept by the library: a host copy now only when the trace asks for one.
  for (const auto& name : node.outputs) {
    if (!name.empty()) values_.set_native(name);
  }
  if (!on_node_) return Status::Ok();
  std::vector<Value> by_pos(node.outputs.size());
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i].empty()) continue;
    IG_ASSIGN_OR_RETURN(const Value* v, values_.host(node.outputs[i]));
    by_pos[i] = *v;
  }
  on_node_(node, by_pos, report);
  return Status::Ok();
}

void LibraryExecutor::store(const Node& node, std::vector<Value> compact,
                            const NodeReport& report) {
  std::vector<Value> by_pos = outputs_by_position(node, std::move(compact));
  if (on_node_) on_node_(node, by_pos, report);
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (!node.outputs[i].empty()) values_.set(node.outputs[i], std::move(by_pos[i]));
  }
}

}  // namespace ig

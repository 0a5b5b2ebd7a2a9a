#include "analysis/explain/problem.h"

#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "model/onnx_model.h"
#include "model/subgraph.h"
#include "study/self_check.h"

namespace ig {

namespace {

// The values `names` read that none of them produces and that are not initializers, with the
// tensors the run traced (graph inputs from the input set).
Expected<std::map<std::string, Tensor>> entering_values(const Store& store, const CaseData& c,
                                                        const RepRun& run, const Model& model,
                                                        const std::vector<const Node*>& nodes,
                                                        const std::string& platform) {
  std::set<std::string> produced;
  for (const Node* n : nodes)
    for (const auto& o : n->outputs) produced.insert(o);
  std::map<std::string, Tensor> out;
  std::map<std::string, TensorKey> graph_inputs;
  bool graph_inputs_loaded = false;
  for (const Node* n : nodes) {
    for (const auto& in : node_reads(*n)) {
      if (in.empty() || produced.count(in) || out.count(in) || model.graph.is_initializer(in)) {
        continue;
      }
      auto traced = run.values.find(in);
      if (traced != run.values.end()) {
        IG_ASSIGN_OR_RETURN(out[in], store.tensor(traced->second));
        continue;
      }
      if (!graph_inputs_loaded) {
        IG_ASSIGN_OR_RETURN(graph_inputs, input_set_keys(store, c.input));
        graph_inputs_loaded = true;
      }
      auto gi = graph_inputs.find(in);
      if (gi == graph_inputs.end()) {
        return invalid_argument(
            "run {} ({}): input '{}' of node '{}' was not captured (study with --layers all)",
            run.run_id, platform, in, n->name);
      }
      IG_ASSIGN_OR_RETURN(out[in], store.tensor(gi->second));
    }
  }
  return out;
}

// Adds to `group` the nodes that compute its untraced inputs from initializers alone (the
// DequantizeLinear of a weight or bias, which ONNX Runtime folds at load and never traces), in
// graph order, so that the cut-out group computes them itself.
void add_constant_producers(const Model& whole, const RepRun& run,
                            std::vector<const Node*>& group) {
  std::map<std::string, const Node*> producer;
  for (const auto& n : whole.graph.nodes)
    for (const auto& o : n.outputs) producer[o] = &n;
  std::set<const Node*> members(group.begin(), group.end());
  std::function<bool(const std::string&)> constant = [&](const std::string& v) {
    if (v.empty() || whole.graph.is_initializer(v)) return true;
    auto p = producer.find(v);
    if (p == producer.end() || run.values.count(v)) return false;
    for (const auto& in : p->second->inputs)
      if (!constant(in)) return false;
    return true;
  };
  std::vector<const Node*> todo(group.begin(), group.end());
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    for (const auto& in : n->inputs) {
      auto p = producer.find(in);
      if (in.empty() || p == producer.end() || members.count(p->second) || run.values.count(in) ||
          !constant(in))
        continue;
      members.insert(p->second);
      todo.push_back(p->second);
    }
  }
  // A DequantizeLinear whose output the group shares with other readers stays outside it on the
  // platform (oneDNN quantizes that output again, exactly): it joins the cut-out group, fed the
  // integers the platform traced, so that the emulator sees the QDQ group whole (qdq=int).
  for (const Node* n : std::vector<const Node*>(members.begin(), members.end())) {
    for (const auto& in : n->inputs) {
      auto p = producer.find(in);
      if (in.empty() || p == producer.end() || members.count(p->second)) continue;
      const Node& dq = *p->second;
      if (dq.op_type == "DequantizeLinear" && dq.domain.empty() && !dq.inputs.empty() &&
          (run.values.count(dq.inputs[0]) || whole.graph.is_initializer(dq.inputs[0])))
        members.insert(&dq);
    }
  }
  group.clear();
  for (const auto& n : whole.graph.nodes)
    if (members.count(&n)) group.push_back(&n);
}

// A fused group (oneDNN's conv + post-ops): its nodes cut out as a model of their own, fed what
// the platform traced before the group, compared at the group's traced output.
Expected<ExplainProblem> fused_group_problem(const Store& store, const CaseData& c,
                                             const RepRun& run, const std::string& platform,
                                             const std::string& covered, const std::string& value,
                                             Model& model) {
  IG_ASSIGN_OR_RETURN(Model whole, load_model(c.model_path));
  std::vector<const Node*> group;
  for (const auto& n : whole.graph.nodes) {
    if (("," + covered + ",").find("," + n.name + ",") != std::string::npos) group.push_back(&n);
  }
  if (group.empty())
    return invalid_argument("{}: no nodes of the group '{}'", c.model_path, covered);
  add_constant_producers(whole, run, group);
  IG_ASSIGN_OR_RETURN(auto feeds, entering_values(store, c, run, whole, group, platform));
  IG_ASSIGN_OR_RETURN(Tensor target, store.tensor(run.values.at(value)));
  std::set<std::string> produced;
  for (const Node* n : group)
    for (const auto& o : n->outputs)
      if (!o.empty()) produced.insert(o);
  std::vector<onnx::ValueInfoProto> in_vi;
  for (const auto& [name, t] : feeds)
    in_vi.push_back(tensor_value_info(name, t.dtype(), t.shape()));
  IG_ASSIGN_OR_RETURN(onnx::ModelProto parent, read_model_proto(c.model_path));
  IG_ASSIGN_OR_RETURN(
      auto sub,
      subgraph_model(parent, produced, in_vi,
                     {tensor_value_info(value, target.dtype(), target.shape())}, "fused_group"));
  std::string bytes;
  if (!sub.SerializeToString(&bytes)) return internal_error("cannot serialize the fused group");
  IG_ASSIGN_OR_RETURN(
      model, load_model_from_bytes(bytes, c.model_path + " (group " + covered + ")",
                                   std::filesystem::path(c.model_path).parent_path().string()));
  ExplainProblem p;
  p.model = &model;
  // Named after its convolution or product where it has one (a QDQ group opens with a
  // DequantizeLinear); every node's traits decide the knobs (explain.cpp).
  p.node = &model.graph.nodes.front();
  for (const auto& n : model.graph.nodes) {
    if (node_traits(n.op_type).reduces) {
      p.node = &n;
      break;
    }
  }
  p.whole_model = true;
  p.group = covered;
  p.target = std::move(target);
  for (auto& [name, t] : feeds) p.inputs[name] = Value::of(std::move(t));
  return p;
}

}  // namespace

Expected<ExplainProblem> explain_problem(const Store& store, const CaseData& c, const RepRun& run,
                                         const std::string& platform, const std::string& node_name,
                                         Model& model, std::string& value) {
  const StoredNode* sn = nullptr;
  for (const auto& n : c.nodes) {
    bool named = n.name == node_name;
    for (const auto& o : n.outputs) named = named || o == node_name;
    if (named) sn = &n;
  }
  if (!sn)
    return invalid_argument("model {}: no node or value named '{}'", c.model_name, node_name);
  size_t index = 0;
  for (; index < sn->outputs.size(); ++index) {
    value = sn->outputs[index];
    if (run.values.count(value)) break;
  }
  if (index == sn->outputs.size()) {
    for (const auto& [v, covered] : run.covers) {
      if (("," + covered + ",").find("," + sn->name + ",") != std::string::npos) {
        value = v;
        return fused_group_problem(store, c, run, platform, covered, v, model);
      }
    }
    return invalid_argument(
        "run {} ({}): node '{}' has no captured output (study with --layers "
        "all)",
        run.run_id, platform, sn->name);
  }
  // The traced value is a fused group's output (the node is the group's last): explain the group.
  auto group = run.covers.find(value);
  if (group != run.covers.end() && group->second.find(',') != std::string::npos) {
    return fused_group_problem(store, c, run, platform, group->second, value, model);
  }
  IG_ASSIGN_OR_RETURN(model, load_model(c.model_path));
  const Node* node = nullptr;
  for (const auto& n : model.graph.nodes) {
    if (static_cast<int64_t>(n.index) == sn->index && n.name == sn->name) node = &n;
  }
  if (!node) {
    return invalid_argument(
        "{}: node '{}' is not where the study recorded it (the model file "
        "changed?)",
        c.model_path, sn->name);
  }
  ExplainProblem p;
  p.model = &model;
  p.node = node;
  p.output_index = index;
  IG_ASSIGN_OR_RETURN(p.target, store.tensor(run.values.at(value)));
  // The one-node model reads its initializers from the values too.
  for (const auto& in : node_reads(*node)) {
    auto init = model.graph.initializers.find(in);
    if (init != model.graph.initializers.end()) p.inputs[in] = Value::of(init->second);
  }
  IG_ASSIGN_OR_RETURN(auto entering, entering_values(store, c, run, model, {node}, platform));
  for (auto& [name, t] : entering) p.inputs[name] = Value::of(std::move(t));
  return p;
}

}  // namespace ig

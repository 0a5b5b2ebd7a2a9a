#include "analysis/explain_problem.h"

#include "model/onnx_model.h"
#include "study/self_check.h"

namespace ig {

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
        return invalid_argument(
            "run {} ({}): node '{}' was computed inside the fused group '{}' (reported at '{}'); "
            "explain needs the node's own output: study the platform with its fusion off",
            run.run_id, platform, sn->name, covered, v);
      }
    }
    return invalid_argument(
        "run {} ({}): node '{}' has no captured output (study with --layers "
        "all)",
        run.run_id, platform, sn->name);
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
  std::map<std::string, TensorKey> graph_inputs;
  bool graph_inputs_loaded = false;
  for (const auto& in : node_reads(*node)) {
    auto init = model.graph.initializers.find(in);
    if (init != model.graph.initializers.end()) {
      p.inputs[in] = Value::of(init->second);
      continue;
    }
    auto traced = run.values.find(in);
    if (traced != run.values.end()) {
      IG_ASSIGN_OR_RETURN(Tensor t, store.tensor(traced->second));
      p.inputs[in] = Value::of(std::move(t));
      continue;
    }
    if (!graph_inputs_loaded) {
      IG_ASSIGN_OR_RETURN(graph_inputs, input_set_keys(store, c.input));
      graph_inputs_loaded = true;
    }
    auto gi = graph_inputs.find(in);
    if (gi == graph_inputs.end()) {
      return invalid_argument(
          "run {} ({}): input '{}' of node '{}' was not captured (study with "
          "--layers all)",
          run.run_id, platform, in, node->name);
    }
    IG_ASSIGN_OR_RETURN(Tensor t, store.tensor(gi->second));
    p.inputs[in] = Value::of(std::move(t));
  }
  return p;
}

}  // namespace ig

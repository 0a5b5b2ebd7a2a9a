#include "workflow/parent_pair.h"

#include <filesystem>
#include <set>

#include "model/onnx_model.h"
#include "tensor/convert.h"

namespace ig {

namespace {

namespace fs = std::filesystem;

std::string input_list(const Model& m) {
  std::string s;
  for (const auto* v : m.graph.runtime_inputs()) s += (s.empty() ? "" : ", ") + v->name;
  return "[" + s + "]";
}

Status check_same_inputs(const ParentPair& p) {
  std::map<std::string, const ValueInfo*> parent;
  for (const auto* v : p.parent_model.graph.runtime_inputs()) parent[v->name] = v;
  const auto derived = p.derived_model.graph.runtime_inputs();
  bool same = derived.size() == parent.size();
  for (const auto* v : derived) same = same && parent.count(v->name);
  if (!same)
    return invalid_argument("{} and its parent {} differ in their graph inputs: {} against {}",
                            p.derived_path, p.parent_path, input_list(p.derived_model),
                            input_list(p.parent_model));
  return Status::Ok();
}

Status check_shared_values(const ParentPair& p) {
  std::set<std::string> parent;
  for (const auto& n : p.parent.graph().node())
    for (const auto& o : n.output()) parent.insert(o);
  for (const auto& n : p.derived.graph().node())
    for (const auto& o : n.output())
      if (parent.count(o)) return Status::Ok();
  return invalid_argument(
      "{} and {} have no node output name in common: is {} the float parent of {}? (infergap "
      "quantize and convert keep the parent's names)",
      p.derived_path, p.parent_path, p.parent_path, p.derived_path);
}

}  // namespace

Expected<ParentPair> load_parent_pair(const std::string& derived, const std::string& parent,
                                      const InputRequest& inputs) {
  ParentPair p;
  p.derived_path = derived;
  p.parent_path = parent;
  IG_ASSIGN_OR_RETURN(p.derived_model, load_model(derived));
  IG_ASSIGN_OR_RETURN(p.parent_model, load_model(parent));
  IG_ASSIGN_OR_RETURN(p.derived, read_model_proto(derived));
  IG_ASSIGN_OR_RETURN(p.parent, read_model_proto(parent));
  IG_RETURN_IF_ERROR(check_same_inputs(p));
  IG_RETURN_IF_ERROR(check_shared_values(p));
  IG_ASSIGN_OR_RETURN(const GatheredInputs gathered, gather_inputs(p.parent_model, inputs));
  for (const auto& in : gathered.inputs) p.parent_feeds[in.name] = in.tensor;
  for (const auto* v : p.derived_model.graph.runtime_inputs()) {
    const Tensor& t = p.parent_feeds.at(v->name);
    p.derived_feeds[v->name] =
        t.dtype() == v->dtype || !is_float(v->dtype) ? t : convert_float_tensor(t, v->dtype);
  }
  return p;
}

Expected<std::map<std::string, Tensor>> run_values(WorkerPool& pool, const std::string& platform,
                                                   const std::string& path,
                                                   const std::map<std::string, Tensor>& feeds,
                                                   bool all_layers, double timeout_seconds) {
  RunRequest r;
  r.platform = platform;
  r.model_path = path;
  r.inputs = feeds;
  r.capture.all_layers = all_layers;
  r.timeout_seconds = timeout_seconds;
  RunResult res = pool.run(r);
  if (res.verdict != Verdict::kOk)
    return invalid_argument("{} on {}: {}: {}", path, platform, verdict_name(res.verdict),
                            res.reason);
  std::map<std::string, Tensor> values = feeds;
  for (auto& t : res.trace) values[t.value] = std::move(t.tensor);
  for (auto& t : res.outputs) values[t.value] = std::move(t.tensor);
  return values;
}

}  // namespace ig

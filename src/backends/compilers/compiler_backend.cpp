#include "backends/compilers/compiler_backend.h"

#include <set>

#include "backends/library/node_groups.h"
#include "model/model_identity.h"

namespace ig {

void report_exposed(const Model& model, const std::map<std::string, Value>& values,
                    const std::map<std::string, std::string>& notes, const NodeCallback& on_node,
                    const std::string& note) {
  const Graph& g = model.graph;
  std::map<std::string, size_t> producer;
  for (size_t n = 0; n < g.nodes.size(); ++n)
    for (const auto& name : g.nodes[n].outputs)
      if (!name.empty()) producer[name] = n;
  std::set<size_t> heads;
  for (const auto& [name, v] : values)
    if (auto it = producer.find(name); it != producer.end()) heads.insert(it->second);
  std::vector<bool> covered(g.nodes.size(), false);
  for (size_t head : heads) {  // ascending: execution order
    // The head's upstream nodes, in topological order, reached through values not exposed, that
    // no earlier group took.
    std::vector<bool> upstream(g.nodes.size(), false);
    upstream[head] = true;
    for (size_t n = head + 1; n-- > 0;) {
      if (!upstream[n]) continue;
      for (const auto& in : g.nodes[n].inputs)
        if (auto it = producer.find(in); it != producer.end() && !values.count(in))
          upstream[it->second] = true;
    }
    NodeGroup group;
    for (size_t n = 0; n <= head; ++n)
      if (upstream[n] && !covered[n]) {
        group.nodes.push_back(n);
        covered[n] = true;
      }
    const Node& node = g.nodes[head];
    std::vector<Value> outs(node.outputs.size());
    std::string head_note = note;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (auto it = values.find(node.outputs[i]); it != values.end()) outs[i] = it->second;
      if (auto it = notes.find(node.outputs[i]); it != notes.end()) head_note = it->second;
    }
    on_node(node, outs,
            NodeReport{group.nodes.size() > 1 ? covers_of(g, group) : std::string(), head_note});
  }
}

CompilerBackend::CompilerBackend(std::string name, std::map<std::string, std::string> knobs,
                                 std::string cache, std::unique_ptr<RunnerProcess> runner)
    : name_(std::move(name)),
      knobs_(std::move(knobs)),
      cache_(std::move(cache)),
      runner_(std::move(runner)) {}

LibraryVersion CompilerBackend::library() const {
  return {runner_->hello().value("library", name_), runner_->version()};
}

Expected<const CompilerBackend::Program*> CompilerBackend::program(const Model& model) {
  const std::string identity = model_file_key(model.path);
  if (auto it = programs_.find(identity); it != programs_.end()) return &it->second;
  if (auto it = refused_.find(identity); it != refused_.end()) return it->second;
  // One program at a time: a campaign moves from model to model, and each holds its weights.
  for (const auto& [id, p] : programs_) (void)runner_->call({{"op", "drop"}, {"key", p.key}});
  programs_.clear();
  last_ = nullptr;
  const std::string key = std::to_string(next_key_++);
  auto loaded = runner_->call(
      {{"op", "load"}, {"key", key}, {"model", model.path}, {"knobs", knobs_}, {"cache", cache_}});
  if (!loaded.ok()) {
    if (loaded.status().code() != StatusCode::kUnsupported)
      return internal_error("{}: {}", name_, loaded.status().message());
    if (refused_.size() > 64) refused_.clear();  // a campaign's worth, not a leak
    return refused_[identity] = unsupported("{}: {}", name_, loaded.status().message());
  }
  Program& p = programs_[identity];
  p.key = key;
  p.executed = loaded->header.value("executed", nlohmann::json::object());
  return &p;
}

std::string CompilerBackend::precision_note(const nlohmann::json& executed) {
  const auto& precisions = executed.value("precisions", nlohmann::json::object());
  if (precisions.empty()) return "";
  std::string list;
  for (const auto& [precision, count] : precisions.items())
    list += fmt::format("{}{} {}", list.empty() ? "" : ", ", count.get<int>(), precision);
  return fmt::format("layers ran in {} (inference precision {}, mode {})", list,
                     executed.value("inference_precision", std::string("?")),
                     executed.value("execution_mode", std::string("?")));
}

std::string CompilerBackend::executed_note(const Program& program) const {
  std::string note = fmt::format(
      "compiled as a whole by {} {}: its layers are not exposed (a cut model is compiled to "
      "find the operator)",
      library().library, library().version);
  if (const std::string precision = precision_note(program.executed); !precision.empty())
    note += "; " + precision;
  return note;
}

std::string CompilerBackend::run_note() const {
  return last_ ? precision_note(last_->executed) : "";
}

Expected<std::vector<Value>> CompilerBackend::run_values(const Model& model,
                                                         const std::map<std::string, Value>& feeds,
                                                         const NodeCallback& on_node) {
  IG_RETURN_IF_ERROR(check_feeds(model, feeds));
  IG_ASSIGN_OR_RETURN(const Program* p, program(model));
  last_ = p;
  nlohmann::json req{{"op", "run"}, {"key", p->key}, {"trace", static_cast<bool>(on_node)}};
  std::string body;
  IG_RETURN_IF_ERROR(RunnerProcess::encode_feeds(feeds, name_, &req["feeds"], &body));
  auto reply = runner_->call(req, body);
  if (!reply.ok()) {
    if (reply.status().code() == StatusCode::kUnsupported)  // compiled at the first run (torch)
      return unsupported("{}: {}", name_, reply.status().message());
    return internal_error("{}: {}", name_, reply.status().message());
  }
  IG_ASSIGN_OR_RETURN(auto outputs, RunnerProcess::decode_outputs(*reply, name_));
  std::map<std::string, Value> values;
  std::vector<Value> result;
  for (const auto& o : model.graph.outputs) {
    auto it = outputs.find(o.name);
    if (it == outputs.end())
      return internal_error("{}: the compiled program gave no output '{}'", name_, o.name);
    values[o.name] = Value::of(it->second);
    result.push_back(values[o.name]);
  }
  if (!on_node) return result;
  // The layers the compiler exposed without changing what runs (OpenVINO), each with what
  // computed it; a string says why it could not, and the whole graph is one group.
  const nlohmann::json layers = reply->header.value("layers", nlohmann::json());
  std::map<std::string, std::string> notes;
  std::string note = executed_note(*p);
  if (layers.is_object() && !layers.empty()) {
    for (const auto& [name, what] : layers.items()) {
      auto it = outputs.find(name);
      if (it == outputs.end() || values.count(name)) continue;
      values[name] = Value::of(it->second);
      notes[name] = what.get<std::string>();
    }
    note = "the layer computing it was not exposed";
  } else if (layers.is_string()) {
    note += "; layers not exposed: " + layers.get<std::string>();
  }
  report_exposed(model, values, notes, on_node, note);
  return result;
}

}  // namespace ig

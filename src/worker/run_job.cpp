#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "backends/backend.h"
#include "core/strings.h"
#include "model/limits.h"
#include "model/model_identity.h"
#include "model/onnx_model.h"
#include "platform/registry.h"
#include "tensor/hash.h"
#include "worker/job.h"

namespace ig {

namespace {

// Every node the backend refuses before running (subgraph nodes keep index -1: their index is
// not a main-graph position).
std::vector<Rejection> rejections_of(const Model& model, const Backend& backend) {
  std::vector<Rejection> out;
  for (const auto& [node, st] : backend.unsupported_nodes_of(model)) {
    const bool main =
        node->index < model.graph.nodes.size() && &model.graph.nodes[node->index] == node;
    out.push_back(
        {node->name, node->op_type, main ? static_cast<int64_t>(node->index) : -1, st.message()});
  }
  return out;
}

// A node the backend found it could not run only when it ran it (a configuration its library
// has no implementation for); the executor marked the node on the Status.
Rejection rejection_at(const Model& model, const Status& st) {
  const int64_t i = st.node();
  if (i < 0 || static_cast<size_t>(i) >= model.graph.nodes.size())
    return {"", "", -1, st.message()};
  const Node& n = model.graph.nodes[static_cast<size_t>(i)];
  return {n.name, n.op_type, i, st.message()};
}

// A worker runs one model many times (input sets, repetitions, a benchmark): the last model loaded
// is kept while its file is unchanged (ModelVersion), instead of reading, checking and converting
// it on every run, which costs as much as running a ResNet-18.
// A different memory budget loads again (the limits are checked at load).
Expected<std::shared_ptr<const Model>> load_cached(const std::string& path,
                                                   const LoadOptions& load) {
  static std::mutex mu;
  static ModelVersion version;
  static std::shared_ptr<const Model> last;
  static uint64_t last_budget = 0;
  static bool last_data = true;
  const std::lock_guard lock(mu);
  // Stat before loading: a rewrite during the load shows as another version next time.
  if (version.check(path) == ModelVersion::kSame && last && last_budget == load.max_memory_bytes &&
      last_data == load.initializer_data)
    return last;
  last.reset();
  last_budget = load.max_memory_bytes;
  last_data = load.initializer_data;
  auto model = load_model(path, load);
  if (!model.ok()) return model.status();
  last = std::make_shared<const Model>(std::move(*model));
  return last;
}

// Every node `value` depends on, in topological order, as NodeReport::covers names them.
std::string upstream_of(const Graph& graph, const std::string& value) {
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const auto& o : graph.nodes[i].outputs)
      if (!o.empty()) producer[o] = i;
  std::vector<bool> needed(graph.nodes.size(), false);
  std::vector<std::string> todo{value};
  while (!todo.empty()) {
    auto it = producer.find(todo.back());
    todo.pop_back();
    if (it == producer.end() || needed[it->second]) continue;
    needed[it->second] = true;
    for (const auto& in : graph.nodes[it->second].inputs) todo.push_back(in);
  }
  std::string covers;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!needed[i]) continue;
    const Node& n = graph.nodes[i];
    covers += (covers.empty() ? "" : ",") + (n.name.empty() ? "#" + std::to_string(i) : n.name);
  }
  return covers;
}

}  // namespace

namespace {
std::atomic<bool> g_isolated_worker{false};
}  // namespace

void set_process_is_isolated_worker(bool isolated) { g_isolated_worker = isolated; }

std::string repro_command(const RunRequest& request) {
  return "infergap run " + shell_quote(request.model_path) + " -p '" + request.platform + "'" +
         request.input_flags;
}

RunResult run_in_process(const RunRequest& request) {
  auto spec = parse_platform_spec(request.platform);
  RunResult result;
  result.repro = repro_command(request);
  if (!spec.ok()) {
    result.reason = spec.status().message();
    return result;
  }
  auto backend = make_backend(*spec);
  if (!backend.ok()) {
    result.verdict = verdict_for(backend.status());
    result.reason = backend.status().message();
    return result;
  }
  return run_with_backend(**backend, request, nullptr);
}

RunResult run_with_backend(Backend& backend, const RunRequest& request, const TraceSink& sink) {
  RunResult result;
  result.repro = repro_command(request);
  const LibraryVersion library = backend.library();
  result.library = library.library;
  result.library_version = library.version;
  const auto t0 = std::chrono::steady_clock::now();
  auto finish = [&](Verdict verdict, std::string reason) {
    result.verdict = verdict;
    result.reason = std::move(reason);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return result;
  };
  try {
    LoadOptions load;
    load.onnx_in_this_process = g_isolated_worker;
    load.initializer_data = backend.reads_initializers();  // ViT-B/16 under ORT: 344 MB spared
    load.max_memory_bytes =
        request.max_memory_bytes ? request.max_memory_bytes : default_memory_budget();
    // Tensors computed at run time (Expand, Tile, ConstantOfShape...) obey the same budget.
    set_tensor_byte_limit(load.max_memory_bytes);
    auto loaded = load_cached(request.model_path, load);
    result.load_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!loaded.ok()) return finish(Verdict::kLoadError, loaded.status().message());
    const std::shared_ptr<const Model> model = *loaded;
    result.rejections = rejections_of(*model, backend);
    if (!result.rejections.empty())
      return finish(Verdict::kUnsupported, result.rejections.front().reason);
    if (request.support_only) {
      Status st = backend.check_loads(*model);
      if (st.ok()) return finish(Verdict::kOk, "");
      result.rejections = {rejection_at(*model, st)};
      return finish(verdict_for(st), st.message());
    }
    NodeCallback on_node;
    std::unordered_map<std::string, uint64_t> traced_hash;
    if (request.capture.all_layers) {
      on_node = [&](const Node& node, const std::vector<Value>& outs, const NodeReport& report) {
        for (size_t i = 0; i < outs.size() && i < node.outputs.size(); ++i) {
          if (node.outputs[i].empty() || !outs[i].is_tensor()) continue;
          TracedTensor t =
              traced_value(node.outputs[i], &node, outs[i].tensor, request.capture.keep_tensors);
          t.covers = report.covers;
          t.note = report.note;
          traced_hash[t.value] = t.hash;
          if (sink) {
            sink(std::move(t));
          } else {
            result.trace.push_back(std::move(t));
          }
        }
      };
    }
    auto outs = backend.run(*model, request.inputs, on_node);
    if (!outs.ok()) {
      const Status& st = outs.status();
      if (st.code() == StatusCode::kUnsupported) result.rejections = {rejection_at(*model, st)};
      return finish(verdict_for(st), st.message());
    }
    // Graph outputs name their producer here, where the model is loaded: the coordinator keeps
    // no model.
    std::unordered_map<std::string, const Node*> producer;
    for (const auto& n : model->graph.nodes)
      for (const auto& o : n.outputs) producer[o] = &n;
    for (size_t i = 0; i < outs->size(); ++i) {
      const Value& v = (*outs)[i];
      if (!v.is_tensor()) continue;
      const std::string& name = model->graph.outputs[i].name;
      auto it = producer.find(name);
      result.outputs.push_back(
          traced_value(name, it == producer.end() ? nullptr : it->second, v.tensor, true));
      // A backend that traces a copy of the model (ORT: intermediates as outputs, which stops
      // fusion) computed this output another way than its trace: it belongs to every node
      // upstream, not to its producer alone.
      auto t = traced_hash.find(name);
      if (t != traced_hash.end() && t->second != result.outputs.back().hash) {
        result.outputs.back().covers = upstream_of(model->graph, name);
        result.outputs.back().note =
            "graph output of the unmodified model; its traced copy gave other bits";
      }
    }
    if (const std::string note = backend.run_note(); !note.empty())
      for (auto& out : result.outputs)
        if (out.note.empty()) out.note = note;
    return finish(Verdict::kOk, "");
  } catch (const std::exception& e) {
    return finish(Verdict::kError, std::string("internal error: ") + e.what());
  }
}

}  // namespace ig

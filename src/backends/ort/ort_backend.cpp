#include "backends/ort/ort_backend.h"

#include <onnx/onnx_pb.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "backends/ort/ort_executed_graph.h"
#include "backends/ort/ort_s8_shift.h"
#include "core/process_memory.h"
#include "model/model_identity.h"
#include "model/onnx_model.h"

namespace ig {

namespace {

namespace fs = std::filesystem;

// Whether a value read from ORT's optimized graph has the dtype and shape shape inference gave
// the original value: a guard against a name ORT reused for a value of its own.
bool fits_declared(const Model& model, const std::string& name, const Tensor& t) {
  auto it = model.graph.value_info.find(name);
  if (it == model.graph.value_info.end()) return true;
  const ValueInfo& vi = it->second;
  if (vi.dtype != DType::kUndefined && vi.dtype != t.dtype()) return false;
  if (!vi.has_shape) return true;
  if (vi.dims.size() != t.shape().size()) return false;
  for (size_t i = 0; i < vi.dims.size(); ++i)
    if (vi.dims[i].value >= 0 && vi.dims[i].value != t.shape()[i]) return false;
  return true;
}

// Bytes of a value as shape inference declared it, an open dim counted as 1: only to size chunks.
uint64_t declared_bytes(const Model& model, const std::string& name) {
  auto it = model.graph.value_info.find(name);
  if (it == model.graph.value_info.end() || it->second.dtype == DType::kUndefined) return 0;
  uint64_t bytes = dtype_size(it->second.dtype);
  for (const auto& d : it->second.dims)
    bytes *= static_cast<uint64_t>(std::max<int64_t>(d.value, 1));
  return bytes;
}

// Consecutive node ranges [first, second) whose values to fetch (fetch_of[node][output], "" for
// none) take at most `limit` bytes, a node alone excepted: each range is one run of the session.
std::vector<std::pair<size_t, size_t>> fetch_chunks(
    const Model& model, const std::vector<std::vector<std::string>>& fetch_of, uint64_t limit) {
  std::vector<std::pair<size_t, size_t>> chunks;
  uint64_t bytes = 0;
  for (size_t n = 0; n < fetch_of.size(); ++n) {
    uint64_t node_bytes = 0;
    const Node& node = model.graph.nodes[n];
    for (size_t i = 0; i < fetch_of[n].size() && i < node.outputs.size(); ++i)
      if (!fetch_of[n][i].empty()) node_bytes += declared_bytes(model, node.outputs[i]);
    if (chunks.empty() || (bytes > 0 && bytes + node_bytes > limit)) {
      chunks.push_back({n, n});
      bytes = 0;
    }
    bytes += node_bytes;
    chunks.back().second = n + 1;
  }
  return chunks;
}

// The graph outputs, then the chunk's values, each name once.
std::vector<std::string> chunk_fetch(const std::vector<std::string>& outputs,
                                     const std::vector<std::vector<std::string>>& fetch_of,
                                     std::pair<size_t, size_t> chunk) {
  std::vector<std::string> fetch = outputs;
  std::set<std::string> seen(outputs.begin(), outputs.end());
  for (size_t n = chunk.first; n < chunk.second; ++n)
    for (const auto& name : fetch_of[n])
      if (!name.empty() && seen.insert(name).second) fetch.push_back(name);
  return fetch;
}

uint64_t weight_bytes(const Model& model) {
  uint64_t bytes = 0;
  for (const auto& [name, t] : model.graph.initializers) bytes += t.nbytes();
  return bytes;
}

// The most bytes of values one run exposes: the trace budget's in-flight half, at most
// kMaxFetchBytes; kLargeModelFetchBytes for a model past kOneSessionWeightBytes, whose runner
// already holds weights of that size (ViT-B/16: node 624 MB at 64 MiB, 504 MB at 16 MiB).
uint64_t fetch_limit(const Model& model) {
  const uint64_t budget = trace_budget_bytes();
  uint64_t limit =
      budget > 0 ? std::min(budget / 4, OrtBackend::kMaxFetchBytes) : OrtBackend::kMaxFetchBytes;
  if (weight_bytes(model) > OrtBackend::kOneSessionWeightBytes)
    limit = std::min(limit, OrtBackend::kLargeModelFetchBytes);
  return limit;
}

// Whether the traced copy exposes `value` as an output: not a sequence, nor a type
// onnxruntime-node does not carry (a float8); a value of unknown type is tried.
bool traced_copy_exposes(const Model& model, const std::string& value) {
  auto it = model.graph.value_info.find(value);
  return it == model.graph.value_info.end() ||
         (it->second.is_tensor && ort_node_carries(it->second.dtype));
}

}  // namespace

Expected<std::vector<std::string>> write_traced_model(const Model& model,
                                                      const std::string& model_path,
                                                      const std::string& out_path) {
  IG_ASSIGN_OR_RETURN(onnx::ModelProto proto, read_model_proto(model_path));
  std::set<std::string> exposed;
  for (const auto& o : proto.graph().output()) exposed.insert(o.name());
  std::vector<std::string> added;
  for (const auto& node : model.graph.nodes) {
    for (const auto& name : node.outputs) {
      if (name.empty() || exposed.count(name) || !traced_copy_exposes(model, name)) continue;
      auto vi = model.graph.value_info.find(name);
      auto* out = proto.mutable_graph()->add_output();
      out->set_name(name);
      // ORT needs an element type on graph outputs; the shape it infers itself.
      if (vi != model.graph.value_info.end() && vi->second.dtype != DType::kUndefined)
        out->mutable_type()->mutable_tensor_type()->set_elem_type(
            static_cast<int>(vi->second.dtype));
      exposed.insert(name);
      added.push_back(name);
    }
  }
  IG_RETURN_IF_ERROR(save_model_proto(proto, out_path));
  return added;
}

OrtBackend::~OrtBackend() {
  runner_.reset();  // ends node before its files go
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

Expected<std::string> OrtBackend::private_dir() {
  if (!dir_.empty()) return dir_;
  // A worker ends by SIGKILL, its destructors unrun: folders of workers gone are removed here.
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path();
  for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
    int pid = 0;
    const std::string name = it->path().filename().string();
    if (std::sscanf(name.c_str(), ".infergap-ort-%d-", &pid) == 1 && pid > 0 &&
        ::kill(pid, 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
  std::string pattern = (tmp / fmt::format(".infergap-ort-{}-XXXXXX", ::getpid())).string();
  if (!::mkdtemp(pattern.data()))
    return io_error("{}: cannot create a folder: {}", pattern, std::strerror(errno));
  dir_ = pattern;
  return dir_;
}

void OrtBackend::make_room(const Model& model) {
  const std::string identity = model_file_key(model.path);
  // Two sessions of a large model each hold its weights (ViT-B/16's plain and executed sessions
  // together took node to 1.6 GB); alternating then costs a load per run, a fraction of one.
  const bool one_session = weight_bytes(model) > kOneSessionWeightBytes;
  for (auto it = loaded_.begin(); it != loaded_.end();) {
    if (!one_session && it->second.identity == identity) {
      ++it;
      continue;
    }
    (void)runner_->call({{"op", "drop"}, {"key", it->second.key}});
    it = loaded_.erase(it);
  }
}

Expected<std::string> OrtBackend::session(const Model& model, Kind kind,
                                          const std::string& load_from) {
  static constexpr const char* kPrefix[] = {"plain:", "traced:", "executed:"};
  const std::string id = kPrefix[static_cast<int>(kind)] + model_file_key(model.path) + load_from;
  if (auto it = loaded_.find(id); it != loaded_.end()) return it->second.key;
  make_room(model);
  const std::string key = std::to_string(next_key_++);
  std::string path = load_from.empty() ? model.path : load_from;
  std::string temp;
  if (kind == Kind::kTracedCopy) {
    // Next to the model, so that relative external-data paths still resolve.
    const fs::path dir = fs::path(model.path).parent_path();
    temp = (dir / fmt::format(".infergap-ort-traced-{}-{}.onnx", ::getpid(), key)).string();
    auto written = write_traced_model(model, model.path, temp);
    if (!written.ok() && written.status().code() == StatusCode::kIoError) {
      IG_ASSIGN_OR_RETURN(std::string own, private_dir());
      temp = (fs::path(own) / fs::path(temp).filename()).string();
      written = write_traced_model(model, model.path, temp);
    }
    if (!written.ok()) return written.status();
    path = temp;
  }
  nlohmann::json request{{"op", "load"},
                         {"key", key},
                         {"model", path},
                         {"opt", kind == Kind::kExecuted ? "disabled" : options_.opt},
                         {"threads", options_.threads}};
  // ORT's arena grows by doubling and keeps what it took until the session goes: a large model's
  // executed graph runs without it (its outputs are checked against the plain ones). A smaller
  // model keeps it: without it each exposed value is a fresh allocation, page faults included
  // (MobileNetV2 traced 3.7x -> 8.5x its untraced run).
  if (kind == Kind::kExecuted && weight_bytes(model) > kOneSessionWeightBytes)
    request["arena"] = false;
  auto loaded = runner_->call(request);
  if (!temp.empty()) std::filesystem::remove(temp);
  if (!loaded.ok())
    return unsupported("ort{}: {}", kind == Kind::kTracedCopy ? " (traced copy of the model)" : "",
                       loaded.status().message());
  loaded_[id] = {model_file_key(model.path), key};
  return key;
}

Status OrtBackend::save_optimized(const Model& model, const std::string& graph) {
  make_room(model);
  const std::string key = std::to_string(next_key_++);
  // Weights of 1 KiB and more go to the data file. Prepacking copies the weights that ORT keeps
  // anyway to save them (node peaked at 1.07 GB on ViT-B/16) and changes no saved byte; the
  // session is dropped unrun.
  const nlohmann::json config{{"session",
                               {{"optimized_model_external_initializers_file_name",
                                 fs::path(graph).filename().string() + ".data"},
                                {"optimized_model_external_initializers_min_size_in_bytes", "1024"},
                                {"disable_prepacking", "1"}}}};
  auto saved = runner_->call({{"op", "load"},
                              {"key", key},
                              {"model", model.path},
                              {"opt", options_.opt},
                              {"threads", options_.threads},
                              {"optimized", graph},
                              {"config", config}});
  if (!saved.ok()) return unsupported("ort: {}", saved.status().message());
  (void)runner_->call({{"op", "drop"}, {"key", key}});
  return Status::Ok();
}

Expected<const OrtBackend::Executed*> OrtBackend::executed(const Model& model) {
  const std::string id = model_file_key(model.path);
  if (auto it = executed_.find(id); it != executed_.end()) {
    if (!it->second.ok()) return it->second.status();
    return &*it->second;
  }
  auto make = [&]() -> Expected<Executed> {
    IG_ASSIGN_OR_RETURN(std::string dir, private_dir());
    const std::string saved =
        (fs::path(dir) / fmt::format("optimized-{}.onnx", executed_.size())).string();
    Status st = save_optimized(model, saved);
    auto proto = st.ok() ? read_model_proto(saved) : Expected<onnx::ModelProto>(st);
    if (!proto.ok()) return internal_error("its optimized graph: {}", proto.status().message());
    Executed e;
    IG_ASSIGN_OR_RETURN(e.plan, expose_executed_graph(model, *proto));
    // A graph per chunk, beside the saved one, whose data file they name relative to its folder.
    for (const auto& [first, last] : fetch_chunks(model, e.plan.fetch_of, fetch_limit(model))) {
      std::set<std::string> keep;
      for (size_t n = first; n < last; ++n)
        for (const auto& name : e.plan.fetch_of[n])
          if (!name.empty()) keep.insert(name);
      onnx::ModelProto chunk = *proto;
      keep_exposed(e.plan, keep, chunk);
      e.chunks.push_back({first, last, fmt::format("{}.exposed-{}.onnx", saved, e.chunks.size())});
      IG_RETURN_IF_ERROR(save_model_proto(chunk, e.chunks.back().path));
    }
    return e;
  };
  auto made = make();
  executed_.emplace(id, std::move(made));
  auto& e = executed_.at(id);
  if (!e.ok()) return e.status();
  return &*e;
}

Expected<std::map<std::string, Tensor>> OrtBackend::run_session(
    const std::string& key, const std::map<std::string, Value>& feeds,
    const std::vector<std::string>& fetch) {
  nlohmann::json req{{"op", "run"}, {"key", key}, {"fetch", fetch}};
  std::string body;
  IG_RETURN_IF_ERROR(RunnerProcess::encode_feeds(feeds, "ort", &req["feeds"], &body));
  auto reply = runner_->call(req, body);
  if (!reply.ok()) return internal_error("ort: {}", reply.status().message());
  IG_ASSIGN_OR_RETURN(auto out, RunnerProcess::decode_outputs(*reply, "ort"));
  return out;
}

Expected<std::map<std::string, Tensor>> OrtBackend::trace_copy(
    const Model& model, const std::map<std::string, Value>& feeds, const NodeCallback& on_node,
    const std::string& note) {
  IG_ASSIGN_OR_RETURN(std::string key, session(model, Kind::kTracedCopy));
  std::vector<std::string> fetch;
  for (const auto& node : model.graph.nodes)
    for (const auto& name : node.outputs)
      if (!name.empty()) fetch.push_back(name);
  // A value the traced copy could not expose is simply not fetched.
  std::erase_if(fetch, [&](const std::string& n) { return !traced_copy_exposes(model, n); });
  IG_ASSIGN_OR_RETURN(auto values, run_session(key, feeds, fetch));
  const NodeReport report{"", note};
  for (const auto& node : model.graph.nodes) {
    std::vector<Value> outs(node.outputs.size());
    for (size_t i = 0; i < node.outputs.size(); ++i)
      if (auto it = values.find(node.outputs[i]); it != values.end())
        outs[i] = Value::of(it->second);
    on_node(node, outs, report);
  }
  return values;
}

namespace {

// A traced run's key for the sample of checked ones: the model file version and the feeds' shapes.
std::string trace_key(const Model& model, const std::map<std::string, Value>& feeds) {
  std::string key = model_file_key(model.path);
  for (const auto& [name, v] : feeds)
    key += "|" + name + (v.is_tensor() ? shape_to_string(v.tensor.shape()) : std::string("?"));
  return key;
}

// Said of a graph output the executed graph gave on a run not checked against a plain one.
std::string unchecked_note() {
  return fmt::format(
      "outputs from ORT's executed graph with its values exposed, not checked against a plain "
      "run on this run (checked on the first traced run of this model and input shapes, then "
      "every {}th; --verify-traces checks every run)",
      kTraceCheckEvery);
}

bool produces_graph_output(const Model& model, const Node& node) {
  for (const auto& o : model.graph.outputs)
    if (std::find(node.outputs.begin(), node.outputs.end(), o.name) != node.outputs.end())
      return true;
  return false;
}

}  // namespace

bool OrtBackend::check_this_trace(const Model& model, const std::map<std::string, Value>& feeds) {
  const std::string key = trace_key(model, feeds);
  const int64_t n = traced_runs_[key]++;
  return verify_every_trace() || check_always_.count(key) != 0 || n % kTraceCheckEvery == 0;
}

Expected<bool> OrtBackend::trace_executed(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          std::map<std::string, Tensor>* outputs,
                                          const NodeCallback& on_node, std::string* why) {
  auto e = executed(model);
  if (!e.ok()) {
    *why = e.status().message();
    return false;
  }
  const ExecutedPlan& plan = (*e)->plan;
  const bool checked = !outputs->empty();
  std::vector<std::string> names;
  for (const auto& o : model.graph.outputs) names.push_back(o.name);
  for (size_t c = 0; c < (*e)->chunks.size(); ++c) {
    const auto& [first, last, path] = (*e)->chunks[c];
    auto key = session(model, Kind::kExecuted, path);
    if (!key.ok()) {
      if (c > 0) return key.status();
      *why = key.status().message();
      executed_.at(model_file_key(model.path)) = key.status();  // not tried again
      return false;
    }
    auto ran = run_session(*key, feeds, chunk_fetch(names, plan.fetch_of, {first, last}));
    if (!ran.ok()) {
      // Before any value is reported, an executed graph ORT cannot run falls back like one whose
      // outputs differ: the plain run stands, the unfused copy is traced.
      if (c > 0) return ran.status();
      *why = "the optimized graph, run with its values exposed, failed: " + ran.status().message();
      return false;
    }
    auto& values = *ran;
    if (!checked && c == 0) {
      for (const auto& name : names) {
        auto it = values.find(name);
        if (it == values.end()) {
          *why = fmt::format("the optimized graph gave no graph output '{}'", name);
          return false;
        }
        (*outputs)[name] = it->second;
      }
    }
    // Every chunk's graph outputs are checked against the plain run's, or the first chunk's.
    for (const auto& [name, t] : *outputs) {
      auto it = values.find(name);
      if (it != values.end() && it->second.bitwise_equal(t)) continue;
      if (c > 0)  // earlier chunks are reported already: no fallback can replace them
        return internal_error(
            "ort: the optimized graph, run with its values exposed, gave graph output '{}' "
            "other bits than with the values of earlier nodes exposed, on the same inputs",
            name);
      *why = fmt::format(
          "graph output '{}' of the optimized graph, run with its values exposed, "
          "differs from the plain session's",
          name);
      check_always_.insert(trace_key(model, feeds));
      return false;
    }
    for (size_t n = first; n < last; ++n) {
      const Node& node = model.graph.nodes[n];
      std::vector<Value> outs(node.outputs.size());
      bool any = false;
      for (size_t i = 0; i < node.outputs.size() && i < plan.fetch_of[n].size(); ++i) {
        auto it = values.find(plan.fetch_of[n][i]);
        if (it != values.end() && plan.shifted.count(it->first) &&
            it->second.dtype() == DType::kUInt8)
          it->second = unshift_u8(it->second);
        if (plan.fetch_of[n][i].empty() || it == values.end() ||
            !fits_declared(model, node.outputs[i], it->second))
          continue;
        outs[i] = Value::of(std::move(it->second));
        any = true;
      }
      if (!any) continue;
      if (checked || !produces_graph_output(model, node)) {
        on_node(node, outs, plan.reports[n]);
        continue;
      }
      // The trace carries the graph outputs (the run's outputs refer to it): it says so there.
      NodeReport report = plan.reports[n];
      report.note += (report.note.empty() ? "" : "; ") + unchecked_note();
      on_node(node, outs, report);
    }
  }
  return true;
}

Expected<std::vector<Value>> OrtBackend::run_values(const Model& model,
                                                    const std::map<std::string, Value>& feeds,
                                                    const NodeCallback& on_node) {
  IG_RETURN_IF_ERROR(check_feeds(model, feeds));
  std::vector<std::string> outputs;
  for (const auto& o : model.graph.outputs) outputs.push_back(o.name);
  std::map<std::string, Tensor> final_values;
  run_note_.clear();
  if (on_node && options_.opt == "disabled") {
    // Without optimization nothing is fused: the traced copy computes exactly the plain run.
    IG_ASSIGN_OR_RETURN(auto values, trace_copy(model, feeds, on_node, ""));
    if (std::all_of(outputs.begin(), outputs.end(),
                    [&](const std::string& n) { return values.count(n) != 0; }))
      final_values = std::move(values);
  }
  // An unchecked traced run: the executed graph alone, its outputs the run's. Where it cannot
  // serve (no executed graph, a failed run), the plain run and the unfused copy do, as below.
  std::string why;
  const bool unchecked = final_values.empty() && on_node && !check_this_trace(model, feeds);
  if (unchecked) {
    IG_ASSIGN_OR_RETURN(bool traced, trace_executed(model, feeds, &final_values, on_node, &why));
    if (traced) {
      run_note_ = unchecked_note();  // for an output the executed graph's trace does not map
    } else {
      final_values.clear();
    }
  }
  if (final_values.empty()) {
    IG_ASSIGN_OR_RETURN(std::string key, session(model, Kind::kPlain));
    IG_ASSIGN_OR_RETURN(final_values, run_session(key, feeds, outputs));
    if (on_node && options_.opt != "disabled") {
      bool traced = false;
      if (!unchecked) {
        IG_ASSIGN_OR_RETURN(traced, trace_executed(model, feeds, &final_values, on_node, &why));
      }
      if (!traced)
        IG_RETURN_IF_ERROR(
            trace_copy(model, feeds, on_node, "unfused copy, not the executed graph: " + why)
                .status());
    }
  }
  std::vector<Value> result;
  for (const auto& name : outputs) {
    auto it = final_values.find(name);
    if (it == final_values.end()) return internal_error("ort: output '{}' missing", name);
    result.push_back(Value::of(it->second));
  }
  return result;
}

}  // namespace ig

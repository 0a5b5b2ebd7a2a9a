#include "backends/ort/ort_backend.h"

#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include "model/onnx_model.h"

namespace ig {

namespace {

namespace fs = std::filesystem;

// Our dtype <-> onnxruntime-node's tensor type names.
const std::map<DType, std::string>& ort_types() {
  static const std::map<DType, std::string> table = {
      {DType::kFloat32, "float32"}, {DType::kFloat64, "float64"}, {DType::kFloat16, "float16"},
      {DType::kInt8, "int8"},       {DType::kInt16, "int16"},     {DType::kInt32, "int32"},
      {DType::kInt64, "int64"},     {DType::kUInt8, "uint8"},     {DType::kUInt16, "uint16"},
      {DType::kUInt32, "uint32"},   {DType::kUInt64, "uint64"},   {DType::kBool, "bool"},
      {DType::kString, "string"}};
  return table;
}

Expected<Tensor> tensor_from_reply(const nlohmann::json& e, const std::string& body) {
  const std::string type = e["dtype"];
  std::optional<DType> dtype;
  for (const auto& [dt, name] : ort_types())
    if (name == type) dtype = dt;
  if (!dtype) return unsupported("ort output '{}' has type {}", e["name"].get<std::string>(), type);
  Shape shape = e["dims"].get<Shape>();
  IG_ASSIGN_OR_RETURN(Tensor t, Tensor::create(*dtype, shape));
  if (*dtype == DType::kString) {
    auto strings = e["strings"].get<std::vector<std::string>>();
    for (size_t i = 0; i < strings.size() && i < t.strings().size(); ++i)
      t.strings()[i] = std::move(strings[i]);
    return t;
  }
  const size_t offset = e["offset"], length = e["length"];
  if (length != t.nbytes() || offset + length > body.size())
    return internal_error("ort output '{}': {} bytes for {}", e["name"].get<std::string>(), length,
                          t.describe());
  std::memcpy(t.raw(), body.data() + offset, length);
  return t;
}

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

// Identity of a model file version: path, size and modification time.
std::string model_identity(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return fmt::format("{}:{}:{}.{}", path, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
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
      if (name.empty() || exposed.count(name)) continue;
      auto vi = model.graph.value_info.find(name);
      if (vi != model.graph.value_info.end() && !vi->second.is_tensor) continue;
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

Expected<std::string> OrtBackend::session(const Model& model, Kind kind,
                                          const std::string& save_optimized,
                                          const std::string& load_from) {
  static constexpr const char* kPrefix[] = {"plain:", "traced:", "executed:"};
  const std::string id = kPrefix[static_cast<int>(kind)] + model_identity(model.path);
  auto cached = sessions_.find(id);
  if (cached != sessions_.end() && (save_optimized.empty() || saved_.count(id)))
    return cached->second;
  const std::string key = std::to_string(next_key_);
  std::string path = load_from.empty() ? model.path : load_from;
  std::string temp;
  if (kind == Kind::kTracedCopy) {
    // Next to the model, so that relative external-data paths still resolve.
    const fs::path dir = fs::path(model.path).parent_path();
    temp = (dir / fmt::format(".infergap-ort-traced-{}-{}.onnx", ::getpid(), key)).string();
    auto written = write_traced_model(model, model.path, temp);
    if (!written.ok() && written.status().code() == StatusCode::kIoError) {
      temp = (fs::temp_directory_path() / fs::path(temp).filename()).string();
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
  if (!save_optimized.empty()) request["optimized"] = save_optimized;
  auto loaded = runner_->call(request);
  if (!temp.empty()) std::filesystem::remove(temp);
  if (!loaded.ok())
    return unsupported("ort{}: {}", kind == Kind::kTracedCopy ? " (traced copy of the model)" : "",
                       loaded.status().message());
  if (cached != sessions_.end()) (void)runner_->call({{"op", "drop"}, {"key", cached->second}});
  ++next_key_;
  sessions_[id] = key;
  if (!save_optimized.empty()) saved_.insert(id);
  return key;
}

Expected<const OrtBackend::Executed*> OrtBackend::executed(const Model& model) {
  const std::string id = model_identity(model.path);
  if (auto it = executed_.find(id); it != executed_.end()) {
    if (!it->second.ok()) return it->second.status();
    return &*it->second;
  }
  auto make = [&]() -> Expected<Executed> {
    const std::string saved =
        (fs::temp_directory_path() /
         fmt::format(".infergap-ort-optimized-{}-{}.onnx", ::getpid(), executed_.size()))
            .string();
    auto plain = session(model, Kind::kPlain, saved);
    auto proto = plain.ok() ? read_model_proto(saved) : Expected<onnx::ModelProto>(plain.status());
    std::filesystem::remove(saved);
    if (!proto.ok()) return internal_error("its optimized graph: {}", proto.status().message());
    Executed e;
    IG_ASSIGN_OR_RETURN(e.plan, expose_executed_graph(model, *proto));
    const std::string exposed = saved + ".exposed.onnx";
    IG_RETURN_IF_ERROR(save_model_proto(*proto, exposed));
    auto key = session(model, Kind::kExecuted, "", exposed);
    std::filesystem::remove(exposed);
    if (!key.ok()) return key.status();
    e.key = *key;
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
  req["feeds"] = nlohmann::json::array();
  std::string body;
  for (const auto& [name, v] : feeds) {
    if (!v.is_tensor()) return unsupported("ort: input '{}' is not a tensor", name);
    const Tensor& t = v.tensor;
    auto type = ort_types().find(t.dtype());
    if (type == ort_types().end())
      return unsupported("ort: input '{}' has dtype {}, which onnxruntime-node cannot take", name,
                         dtype_name(t.dtype()));
    nlohmann::json e{{"name", name}, {"dtype", type->second}, {"dims", t.shape()}};
    if (t.dtype() == DType::kString) {
      e["strings"] = t.strings();
    } else {
      e["offset"] = body.size();
      e["length"] = t.nbytes();
      body.append(reinterpret_cast<const char*>(t.raw()), t.nbytes());
    }
    req["feeds"].push_back(e);
  }
  auto reply = runner_->call(req, body);
  if (!reply.ok()) return internal_error("ort: {}", reply.status().message());
  std::map<std::string, Tensor> out;
  for (const auto& e : reply->header["outputs"]) {
    IG_ASSIGN_OR_RETURN(out[e["name"].get<std::string>()], tensor_from_reply(e, reply->body));
  }
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
  // A value the traced copy could not expose (a sequence) is simply not fetched.
  auto vi_is_tensor = [&](const std::string& n) {
    auto it = model.graph.value_info.find(n);
    return it == model.graph.value_info.end() || it->second.is_tensor;
  };
  std::erase_if(fetch, [&](const std::string& n) { return !vi_is_tensor(n); });
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

Expected<bool> OrtBackend::trace_executed(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const std::map<std::string, Tensor>& plain,
                                          const NodeCallback& on_node, std::string* why) {
  auto e = executed(model);
  if (!e.ok()) {
    *why = e.status().message();
    return false;
  }
  const ExecutedPlan& plan = (*e)->plan;
  IG_ASSIGN_OR_RETURN(auto values, run_session((*e)->key, feeds, plan.fetch));
  for (const auto& [name, t] : plain) {
    auto it = values.find(name);
    if (it == values.end() || !it->second.bitwise_equal(t)) {
      *why = fmt::format(
          "graph output '{}' of the optimized graph, run with its values exposed, "
          "differs from the plain session's",
          name);
      return false;
    }
  }
  for (size_t n = 0; n < model.graph.nodes.size(); ++n) {
    const Node& node = model.graph.nodes[n];
    std::vector<Value> outs(node.outputs.size());
    bool any = false;
    for (size_t i = 0; i < node.outputs.size() && i < plan.fetch_of[n].size(); ++i) {
      auto it = values.find(plan.fetch_of[n][i]);
      if (plan.fetch_of[n][i].empty() || it == values.end() ||
          !fits_declared(model, node.outputs[i], it->second))
        continue;
      outs[i] = Value::of(std::move(it->second));
      any = true;
    }
    if (any) on_node(node, outs, plan.reports[n]);
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
  if (on_node && options_.opt == "disabled") {
    // Without optimization nothing is fused: the traced copy computes exactly the plain run.
    IG_ASSIGN_OR_RETURN(auto values, trace_copy(model, feeds, on_node, ""));
    if (std::all_of(outputs.begin(), outputs.end(),
                    [&](const std::string& n) { return values.count(n) != 0; }))
      final_values = std::move(values);
  }
  if (final_values.empty()) {
    // The executed graph first: its plain session saves the graph and serves the plain run.
    if (on_node && options_.opt != "disabled") (void)executed(model);
    IG_ASSIGN_OR_RETURN(std::string key, session(model, Kind::kPlain));
    IG_ASSIGN_OR_RETURN(final_values, run_session(key, feeds, outputs));
    if (on_node && options_.opt != "disabled") {
      std::string why;
      IG_ASSIGN_OR_RETURN(bool traced, trace_executed(model, feeds, final_values, on_node, &why));
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

#include "study/self_check.h"

#include <unistd.h>

#include <filesystem>
#include <set>

#include "model/onnx_model.h"
#include "model/subgraph.h"
#include "store/store_parse.h"

namespace ig {

namespace {

namespace fs = std::filesystem;

// The values the span reads, as the platform had them.
Expected<std::map<std::string, Tensor>> span_feeds(const Store& store, const SelfCheckRequest& r) {
  std::map<std::string, Tensor> feeds;
  for (const auto& [name, key] : r.inputs) {
    IG_ASSIGN_OR_RETURN(feeds[name], store.tensor(key));
  }
  if (r.graph_inputs.empty()) return feeds;
  IG_ASSIGN_OR_RETURN(auto keys, input_set_keys(store, r.input_set));
  for (const auto& name : r.graph_inputs) {
    auto it = keys.find(name);
    if (it == keys.end()) continue;  // an initializer: the span's model carries it
    IG_ASSIGN_OR_RETURN(feeds[name], store.tensor(it->second));
  }
  return feeds;
}

// The span as a model file next to its parent (relative external data still resolves), else in
// the temp folder. The caller removes it.
Expected<std::string> write_span_model(const SelfCheckRequest& r,
                                       const std::map<std::string, Tensor>& feeds, int serial) {
  IG_ASSIGN_OR_RETURN(onnx::ModelProto parent, read_model_proto(r.model_path));
  std::vector<onnx::ValueInfoProto> inputs;
  for (const auto& [name, t] : feeds)
    inputs.push_back(tensor_value_info(name, t.dtype(), t.shape()));
  const std::vector<onnx::ValueInfoProto> outputs{
      tensor_value_info(r.value, r.value_key.dtype, r.value_key.shape)};
  const std::set<std::string> produced(r.produced.begin(), r.produced.end());
  IG_ASSIGN_OR_RETURN(auto sub, subgraph_model(parent, produced, inputs, outputs, "self_check"));
  return save_model_beside(
      sub, r.model_path,
      ".infergap-selfcheck-" + std::to_string(::getpid()) + "-" + std::to_string(serial) + ".onnx");
}

StoredSelfCheck row_of(const SelfCheckRequest& r, SelfCheckKind kind, const std::string& spec) {
  StoredSelfCheck row;
  row.run = r.run;
  row.value = r.value;
  row.kind = kind;
  row.spec = spec;
  row.nodes = r.nodes;
  return row;
}

}  // namespace

Expected<std::map<std::string, TensorKey>> input_set_keys(const Store& store,
                                                          const std::string& hash) {
  IG_ASSIGN_OR_RETURN(auto inputs, store.inputs());
  for (const auto& in : inputs) {
    if (in.hash != hash) continue;
    std::map<std::string, TensorKey> keys;
    for (const auto& e : in.recipe.value("inputs", nlohmann::json::array())) {
      TensorKey k;
      IG_ASSIGN_OR_RETURN(k.hash, parse_hash(e.value("hash", "")));
      IG_ASSIGN_OR_RETURN(k.dtype, parse_dtype(e.value("dtype", "")));
      k.shape = e.value("shape", Shape{});
      keys[e.value("name", "")] = k;
    }
    return keys;
  }
  return not_found("{}: no input set {}", store.path(), hash);
}

Expected<SelfCheckSummary> run_self_checks(Store& store, WorkerPool& pool, const Catalog& catalog,
                                           const std::vector<SelfCheckRequest>& requests,
                                           const SelfCheckOptions& options) {
  SelfCheckSummary summary;
  IG_ASSIGN_OR_RETURN(auto stored, store.self_checks());
  int serial = 0;
  for (const auto& r : requests) {
    std::vector<std::pair<SelfCheckKind, std::string>> kinds = {{SelfCheckKind::kOracle, r.oracle}};
    if (!r.oracle_only) {
      IG_ASSIGN_OR_RETURN(const std::string unfused, unfused_spec(catalog, r.platform));
      kinds.insert(kinds.begin(), {SelfCheckKind::kUnfused, unfused});
    }
    std::vector<std::pair<SelfCheckKind, std::string>> todo;
    for (const auto& [kind, spec] : kinds) {
      ++summary.requested;
      bool have = false;
      for (const auto& s : stored[r.run]) have = have || (s.value == r.value && s.kind == kind);
      if (have) {
        ++summary.skipped;
      } else {
        todo.emplace_back(kind, spec);
      }
    }
    if (todo.empty()) continue;
    auto feeds = span_feeds(store, r);
    auto path = feeds.ok() ? write_span_model(r, *feeds, serial++) : feeds.status();
    for (const auto& [kind, spec] : todo) {
      StoredSelfCheck row = row_of(r, kind, spec);
      Tensor out;
      if (!path.ok()) {
        row.verdict = Verdict::kError;
        row.reason = "the span could not be re-run alone: " + path.status().message();
      } else {
        RunRequest req;
        req.platform = spec;
        req.model_path = *path;
        req.inputs = *feeds;
        req.capture.all_layers = false;
        req.timeout_seconds = options.timeout_seconds;
        req.max_memory_bytes = options.max_memory_bytes;
        RunResult res = pool.run(req);
        row.verdict = res.verdict;
        row.reason = res.reason;
        for (auto& o : res.outputs) {
          if (o.value != r.value || !o.tensor.defined()) continue;
          out = std::move(o.tensor);
          row.tensor = TensorKey{o.hash, o.dtype, o.shape};
        }
        if (row.verdict == Verdict::kOk && !row.tensor) {
          row.verdict = Verdict::kError;
          row.reason = "the re-run gave no '" + r.value + "'";
        }
      }
      ++summary.executed;
      IG_RETURN_IF_ERROR(store.put_self_check(row, out.defined() ? &out : nullptr));
    }
    if (path.ok()) fs::remove(*path);
  }
  return summary;
}

}  // namespace ig

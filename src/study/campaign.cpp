#include "study/campaign.h"

#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace ig {

namespace fs = std::filesystem;

Expected<std::vector<std::string>> campaign_models(const std::vector<std::string>& args, int shard,
                                                   int shards) {
  if (shards < 1 || shard < 0 || shard >= shards)
    return invalid_argument("--shard {}/{}: needs 0 <= I < N", shard, shards);
  std::vector<std::string> all;
  for (const auto& a : args) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(a, ec))
        if (e.is_regular_file() && e.path().extension() == ".onnx") all.push_back(e.path());
    } else if (fs::is_regular_file(a, ec)) {
      all.push_back(a);
    } else {
      return not_found("{}: no such model file or folder", a);
    }
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  if (shards == 1) return all;
  std::vector<std::string> out;
  for (const auto& path : all) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string bytes = ss.str();
    if (XXH3_64bits(bytes.data(), bytes.size()) % static_cast<uint64_t>(shards) ==
        static_cast<uint64_t>(shard))
      out.push_back(path);
  }
  return out;
}

namespace {

// The feeds of a stored input set, from the tensors the store kept for it.
Expected<std::map<std::string, Tensor>> stored_feeds(const Store& store, const StoredInput& in) {
  std::map<std::string, Tensor> feeds;
  for (const auto& r : in.recipe.value("inputs", nlohmann::json::array())) {
    TensorKey key;
    key.hash = std::stoull(r.at("hash").get<std::string>(), nullptr, 16);
    auto dt = dtype_from_name(r.at("dtype").get<std::string>());
    if (!dt) return parse_error("{}: input {} has an unknown dtype", store.path(), in.hash);
    key.dtype = *dt;
    key.shape = r.at("shape").get<Shape>();
    IG_ASSIGN_OR_RETURN(feeds[r.at("name").get<std::string>()], store.tensor(key));
  }
  return feeds;
}

}  // namespace

Expected<TraceSummary> trace_layers(Store& store, WorkerPool& pool,
                                    const std::vector<int64_t>& runs,
                                    const std::function<void(int64_t done)>& progress,
                                    uint64_t trace_budget_bytes) {
  TraceSummary s;
  if (runs.empty()) return s;
  TraceMemory memory(in_flight_share(trace_budget_bytes),
                     fs::absolute(store.path()).parent_path().string());
  store.set_memory_budget(trace_budget_bytes);
  IG_ASSIGN_OR_RETURN(auto models, store.models());
  IG_ASSIGN_OR_RETURN(auto inputs, store.inputs());
  std::map<std::string, std::string> path;
  for (const auto& m : models) path[m.hash] = m.path;
  std::map<std::string, const StoredInput*> input;
  for (const auto& in : inputs) input[in.hash] = &in;
  int64_t done = 0;
  for (int64_t id : runs) {
    IG_ASSIGN_OR_RETURN(StoredRun run, store.run(id));
    if (!input.count(run.key.input))
      return not_found("{}: run {} names unknown input {}", store.path(), id, run.key.input);
    RunRequest req;
    req.platform = run.key.platform;
    req.model_path = path[run.key.model];
    IG_ASSIGN_OR_RETURN(req.inputs, stored_feeds(store, *input[run.key.input]));
    req.capture.all_layers = true;
    req.trace_budget_bytes = trace_budget_bytes;
    RunResult r = pool.run(req, &memory);
    IG_ASSIGN_OR_RETURN(auto stored, store.outputs(id));
    // The layers explain the stored outputs only if the rerun reproduces them bit for bit.
    bool same = r.verdict == Verdict::kOk;
    for (const auto& o : r.outputs)
      for (const auto& so : stored)
        if (so.is_output && so.value == o.value && so.tensor.hash != o.hash) same = false;
    if (same) {
      IG_RETURN_IF_ERROR(store.add_trace(id, r.trace));
      ++s.traced;
    } else {
      ++s.changed;
    }
    if (progress) progress(++done);
  }
  return s;
}

}  // namespace ig

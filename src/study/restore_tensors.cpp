#include "study/restore_tensors.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "model/parent_record.h"
#include "results/trace_memory.h"
#include "study/self_check.h"
#include "worker/host_fingerprint.h"
#include "worker/worker_pool.h"

namespace ig {

namespace {

namespace fs = std::filesystem;

// The bytes written back per transaction: a large model's trace is restored in parts.
constexpr uint64_t kRestoreChunkBytes = uint64_t{64} << 20;
// Runs tried per missing tensor: the next run of the same value may be of a platform that is
// deterministic where the first was not.
constexpr size_t kMaxRunsTried = 3;

class Restorer {
 public:
  Restorer(Store& store, RestoreOptions options) : store_(store), options_(std::move(options)) {}

  Status restore(const TensorKey& key) {
    const std::lock_guard<std::mutex> lock(mu_);
    IG_RETURN_IF_ERROR(learn_hosts());
    IG_ASSIGN_OR_RETURN(const auto runs, store_.runs_of_tensor(key));
    std::set<std::string> elsewhere;
    std::string why;
    size_t tried = 0;
    for (const auto& r : runs) {
      if (!here_.count(r.host)) {
        elsewhere.insert(r.host);
        continue;
      }
      if (tried++ == kMaxRunsTried) break;
      auto failed = failed_.find(r.run);
      Status st = failed != failed_.end() ? failed->second : rerun(r.run);
      if (st.ok()) return st;
      failed_.emplace(r.run, st);
      if (why.find(st.message()) == std::string::npos)  // runs of one model file fail alike
        why += (why.empty() ? "" : "; ") + st.message();
    }
    if (!why.empty()) return not_found("{}", why);
    if (!elsewhere.empty())
      return not_found(
          "the runs that traced it were made on another host ({}), whose bits this one "
          "cannot be trusted to repeat: read it there, or study with --keep-tensors classes",
          fmt::join(elsewhere, ", "));
    return not_found("no run with verdict ok traced it");
  }

 private:
  // Which stored hosts are this machine: the same fingerprint, whatever --host-tag named it.
  Status learn_hosts() {
    if (hosts_learned_) return Status::Ok();
    nlohmann::json here = probe_host().json;
    IG_ASSIGN_OR_RETURN(const auto hosts, store_.hosts());
    for (const auto& h : hosts) {
      nlohmann::json f = h.fingerprint;
      if (f.is_object()) f.erase("tag");
      if (f == here) here_.insert(h.id);
    }
    hosts_learned_ = true;
    return Status::Ok();
  }

  // The model file of `hash`, checked by content once per command: the runs of one model (a
  // compare --parent re-runs them all) do not hash its file again.
  Expected<std::string> model_path(const std::string& hash) {
    if (auto it = checked_models_.find(hash); it != checked_models_.end()) return it->second;
    IG_ASSIGN_OR_RETURN(const auto models, store_.models());
    for (const auto& m : models) {
      if (m.hash != hash) continue;
      if (!fs::exists(m.path)) return not_found("its model file {} is gone", m.path);
      IG_ASSIGN_OR_RETURN(const std::string now, model_file_hash(m.path));
      if (now != hash) return not_found("its model file {} changed since the study", m.path);
      return checked_models_[hash] = m.path;
    }
    return not_found("no model {} in the store", hash);
  }

  Status rerun(int64_t id) {
    IG_ASSIGN_OR_RETURN(const StoredRun run, store_.run(id));
    const std::string what = fmt::format("run {} ({})", id, run.key.platform);
    IG_ASSIGN_OR_RETURN(const std::string path, model_path(run.key.model));
    RunRequest req;
    req.platform = run.key.platform;
    req.model_path = path;
    IG_ASSIGN_OR_RETURN(const auto keys, input_set_keys(store_, run.key.input));
    for (const auto& [name, key] : keys) {
      IG_ASSIGN_OR_RETURN(req.inputs[name], store_.tensor(key));
    }
    req.capture.all_layers = true;
    req.capture.keep_tensors = true;
    req.timeout_seconds = options_.timeout_seconds;
    req.max_memory_bytes = options_.max_memory_bytes;
    req.trace_budget_bytes = kDefaultTraceBudgetBytes;
    if (options_.note)
      options_.note(
          fmt::format("re-running {} on this host for tensors the study did not keep", what));
    if (!pool_) pool_ = std::make_unique<WorkerPool>(WorkerPoolOptions{});
    const std::string dir = fs::absolute(store_.path()).parent_path().string();
    TraceMemory memory(in_flight_share(kDefaultTraceBudgetBytes), dir);
    RunResult result = pool_->run(req, &memory);
    if (result.verdict != Verdict::kOk)
      return not_found("re-running {} gave verdict {}: {}", what, verdict_name(result.verdict),
                       result.reason);
    return check_and_put(id, what, result);
  }

  // Every value the run stored must come back with its hash; then the dropped ones are put back.
  Status check_and_put(int64_t id, const std::string& what, const RunResult& result) {
    // As the store wrote them: the graph output's tensor wins over a traced copy of it.
    std::map<std::string, const TracedTensor*> by_value;
    for (const auto& t : result.trace) by_value[t.value] = &t;
    for (const auto& t : result.outputs) by_value[t.value] = &t;
    IG_ASSIGN_OR_RETURN(const auto stored, store_.outputs(id));
    for (const auto& o : stored) {
      auto it = by_value.find(o.value);
      if (it == by_value.end())
        return not_found("re-running {} traced no value {} (node {})", what, o.value, o.node);
      if (it->second->hash != o.tensor.hash)
        return not_found(
            "re-running {} on this host gave other bits at {} (node {}): the platform is not "
            "deterministic here, so what it gives now is not what the study stored",
            what, o.value, o.node);
    }
    std::vector<Tensor> chunk;
    uint64_t bytes = 0;
    int64_t restored = 0;
    for (const auto& o : stored) {
      const TracedTensor& t = *by_value.at(o.value);
      if (!t.has_data()) continue;
      IG_ASSIGN_OR_RETURN(Tensor data, t.data());
      bytes += data.nbytes();
      chunk.push_back(std::move(data));
      if (bytes < kRestoreChunkBytes) continue;
      IG_ASSIGN_OR_RETURN(const int64_t n, store_.restore_tensors(chunk));
      restored += n;
      chunk.clear();
      bytes = 0;
    }
    IG_ASSIGN_OR_RETURN(const int64_t n, store_.restore_tensors(chunk));
    restored += n;
    if (options_.note)
      options_.note(fmt::format("{}: same bits as stored at all {} values; {} tensors put back",
                                what, stored.size(), restored));
    return Status::Ok();
  }

  Store& store_;
  RestoreOptions options_;
  std::mutex mu_;
  bool hosts_learned_ = false;
  std::set<std::string> here_;
  std::map<int64_t, Status> failed_;
  std::map<std::string, std::string> checked_models_;  // model hash -> its file, checked
  std::unique_ptr<WorkerPool> pool_;
};

}  // namespace

void restore_dropped_tensors(Store& store, RestoreOptions options) {
  auto restorer = std::make_shared<Restorer>(store, std::move(options));
  store.set_tensor_restorer([restorer](const TensorKey& key) { return restorer->restore(key); });
}

RestoreOptions restore_notes_on_stderr(const std::string& command) {
  RestoreOptions options;
  options.note = [command](const std::string& line) {
    std::fprintf(stderr, "infergap %s: %s\n", command.c_str(), line.c_str());
  };
  return options;
}

Expected<std::unique_ptr<Store>> open_store_restoring(const std::string& path,
                                                      const std::string& command) {
  IG_ASSIGN_OR_RETURN(auto store, open_existing_store(path));
  restore_dropped_tensors(*store, restore_notes_on_stderr(command));
  return store;
}

}  // namespace ig

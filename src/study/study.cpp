#include "study/study.h"

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "backends/ref/ref_opsets.h"
#include "core/strings.h"
#include "inputs/inputs.h"
#include "model/onnx_model.h"
#include "model/parent_record.h"
#include "platform/spec.h"
#include "tensor/hash.h"
#include "worker/host_fingerprint.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

// pytorch-converted/test_Conv2d/model.onnx reads better as test_Conv2d than as model.
std::string model_name(const std::string& path) {
  const fs::path p(path);
  if (p.stem() == "model" && p.has_parent_path()) return p.parent_path().filename().string();
  return p.stem().string();
}

nlohmann::json attribute_json(const Attribute& a) {
  using K = Attribute::Kind;
  switch (a.kind) {
    case K::kFloat:
      return a.f;
    case K::kInt:
      return a.i;
    case K::kString:
      return a.s;
    case K::kFloats:
      return a.floats;
    case K::kInts:
      return a.ints;
    case K::kStrings:
      return a.strings;
    case K::kTensor:
      return "tensor " + a.t.describe();
    case K::kGraph:
      return "graph " + (a.g ? a.g->name : std::string());
    default:
      return attribute_kind_name(a.kind);
  }
}

std::vector<StoredNode> graph_nodes(const Model& model) {
  std::vector<StoredNode> out;
  for (const auto& n : model.graph.nodes) {
    StoredNode s{static_cast<int64_t>(n.index), n.name, n.op_type, n.domain, n.inputs, n.outputs,
                 nlohmann::json::object()};
    for (const auto& [k, a] : n.attributes) s.attributes[k] = attribute_json(a);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

Expected<ModelEntry> load_model_entry(const std::string& path, const LoadOptions& load) {
  ModelEntry e;
  IG_ASSIGN_OR_RETURN(e.hash, model_file_hash(path));
  IG_ASSIGN_OR_RETURN(e.model, load_model(path, load));
  IG_RETURN_IF_ERROR(check_ref_opsets(e.model));
  e.path = fs::absolute(path).string();
  return e;
}

namespace {

// What the store keeps of a model: its row and its main graph's nodes.
std::pair<StoredModel, std::vector<StoredNode>> model_row(const ModelEntry& e) {
  StoredModel m{e.hash, e.path, model_name(e.path), {{"source", "file"}, {"path", e.path}}};
  // A variant's lineage (synth/mutate.h) travels in its metadata; the store keeps it.
  if (auto it = e.model.metadata.find("infergap.mutate.lineage"); it != e.model.metadata.end()) {
    auto j = nlohmann::json::parse(it->second, nullptr, false);
    if (j.is_object()) m.lineage["variant"] = j;
  }
  // A derived model's parent file (model/parent_record.h): the campaign pairs them by it.
  if (auto parent = parent_record(e.model.metadata))
    m.lineage["parent"] = {{"hash", parent->hash}, {"file", parent->file}};
  return {std::move(m), graph_nodes(e.model)};
}

}  // namespace

Status store_model(Store& store, const ModelEntry& e) {
  const auto [m, nodes] = model_row(e);
  return store.put_model(m, nodes);
}

Expected<ModelEntry> register_model(Store& store, const std::string& path,
                                    const LoadOptions& load) {
  IG_ASSIGN_OR_RETURN(ModelEntry e, load_model_entry(path, load));
  IG_RETURN_IF_ERROR(store_model(store, e));
  return e;
}

Expected<PreparedInput> prepare_input(const Model& model, const InputRequest& request) {
  PreparedInput p;
  IG_ASSIGN_OR_RETURN(p.gathered, gather_inputs(model, request));
  InputEntry& e = p.entry;
  nlohmann::json recipe{{"seed", request.seed}, {"inputs", nlohmann::json::array()}};
  std::string identity;
  std::string label;
  for (const auto& r : p.gathered.inputs) {
    const std::string h = hash_hex(tensor_hash(r.tensor));
    identity += r.name + '\0' + dtype_name(r.tensor.dtype()) + shape_json(r.tensor.shape()) + h;
    nlohmann::json injected = nlohmann::json::array();
    for (const auto& inj : r.injections) injected.push_back(injection_kind_name(inj.kind));
    recipe["inputs"].push_back({{"name", r.name},
                                {"source", r.source},
                                {"hash", h},
                                {"dtype", dtype_name(r.tensor.dtype())},
                                {"shape", r.tensor.shape()},
                                {"injections", injected}});
    label += (label.empty() ? "" : ",") + r.name + "=" + r.source;
    e.feeds[r.name] = r.tensor;
    p.tensors.push_back(r.tensor);
  }
  e.hash = hash_hex(XXH3_64bits(identity.data(), identity.size()));
  e.flags = request.flags();
  p.stored = {e.hash, label, recipe};
  return p;
}

Expected<InputEntry> register_input(Store& store, const Model& model,
                                    const std::vector<std::string>& files, uint64_t seed) {
  IG_ASSIGN_OR_RETURN(PreparedInput p, prepare_input(model, InputRequest{files, {}, {}, seed}));
  IG_RETURN_IF_ERROR(store.put_input(p.stored, p.tensors));
  return p.entry;
}

namespace {

// The input sets a study runs a model on: the sets given for its path, else the inputs the model
// carries (a campaign variant's), else input_sets seeded sets from input_files and random data.
// --shape and --dim apply to each.
Expected<std::vector<InputRequest>> input_requests_of(const StudyOptions& options,
                                                      const std::string& path, const Model& model) {
  auto request = [&](std::vector<std::string> specs, uint64_t seed) {
    return InputRequest{std::move(specs), options.shapes, options.dims, seed};
  };
  std::vector<InputRequest> sets;
  if (auto it = options.input_spec_sets.find(path); it != options.input_spec_sets.end()) {
    for (const auto& specs : it->second) sets.push_back(request(specs, options.seed));
    return sets;
  }
  if (options.model_inputs) {
    IG_ASSIGN_OR_RETURN(auto own, options.model_inputs(path, model));
    if (!own.empty()) {
      sets.push_back(request(own, options.seed));
      return sets;
    }
  }
  for (int i = 0; i < options.input_sets; ++i)
    sets.push_back(request(options.input_files, options.seed + static_cast<uint64_t>(i)));
  return sets;
}

}  // namespace

// fp64 with compensated (double-double) dot products and sums: the closest to exact we run.
std::string default_oracle() { return "ref:acc=exact,dtype=fp64"; }

std::string oracle_from_choice(const std::string& choice) {
  return choice == "default" ? default_oracle() : choice == "none" ? "" : choice;
}

Expected<StudySummary> run_study(Store& store, WorkerPool& pool, const StudyOptions& options,
                                 const std::function<void(const StudyProgress&)>& progress) {
  if (options.models.empty()) return invalid_argument("study: no model (--model)");
  if (options.platforms.empty()) return invalid_argument("study: no platform (-p)");
  if (options.repeat < 1) return invalid_argument("study: --repeat must be at least 1");
  if (options.input_sets < 1) return invalid_argument("study: --inputs must be at least 1");
  if (options.shards < 1 || options.shard < 0 || options.shard >= options.shards)
    return invalid_argument("study: --shard {}/{}: needs 0 <= I < N", options.shard,
                            options.shards);
  // Canonical spec strings, so `ref:b=1,a=2` and `ref:a=2,b=1` are one platform.
  std::vector<std::string> platforms;
  for (const auto& p : options.platforms) {
    IG_ASSIGN_OR_RETURN(auto spec, parse_platform_spec(p));
    // Backends are built inside their worker (the coordinator loads no backend library).
    IG_RETURN_IF_ERROR(pool.start(spec.to_string()));
    platforms.push_back(spec.to_string());
  }
  std::string oracle;
  if (!options.oracle.empty()) {
    IG_ASSIGN_OR_RETURN(auto spec, parse_platform_spec(options.oracle));
    IG_RETURN_IF_ERROR(pool.start(spec.to_string()).with_context("oracle"));
    oracle = spec.to_string();
    if (auto prev = store.meta("oracle"); prev && *prev != oracle)
      return invalid_argument("{}: the study's oracle is '{}', not '{}'", store.path(), *prev,
                              oracle);
    IG_RETURN_IF_ERROR(store.set_meta("oracle", oracle));
  }
  const HostFingerprint host = probe_host(options.host_tag);
  IG_RETURN_IF_ERROR(store.put_host({host.id, host.json}));
  if (!oracle.empty()) IG_RETURN_IF_ERROR(store.put_platform(oracle, host.id, true));
  for (const auto& p : platforms) IG_RETURN_IF_ERROR(store.put_platform(p, host.id));

  // The coordinator holds no model while jobs run: each model is loaded once to record it and
  // make its input sets, then dropped (workers load their own copy; they name graph outputs'
  // producers), so a campaign of thousands of variants costs what one model does.
  struct StudyModel {
    std::string hash, path;
    std::vector<InputEntry> inputs;
  };
  struct Job {
    const StudyModel* model;
    const InputEntry* input;
    std::string platform;
    int repetition;
  };
  std::vector<StudyModel> models;
  models.reserve(options.models.size());
  // Every model and input set is made before any is stored: bad input stores nothing.
  std::vector<std::pair<StoredModel, std::vector<StoredNode>>> model_rows;
  std::vector<PreparedInput> input_rows;
  std::vector<GatheredInputs> gathered;
  StudySummary summary;
  for (const auto& path : options.models) {
    // One model's rows, kept only once all of them are made.
    std::pair<StoredModel, std::vector<StoredNode>> row;
    std::vector<InputEntry> sets;
    std::vector<PreparedInput> prepared;
    std::vector<std::pair<std::string, DefaultedDim>> defaulted;
    std::string hash, model_path;
    const Status made = [&]() -> Status {
      LoadOptions load;
      load.max_memory_bytes = options.max_memory_bytes;
      IG_ASSIGN_OR_RETURN(ModelEntry m, load_model_entry(path, load));
      row = model_row(m);
      hash = m.hash;
      model_path = m.path;
      IG_ASSIGN_OR_RETURN(auto requests, input_requests_of(options, path, m.model));
      for (const auto& request : requests) {
        IG_ASSIGN_OR_RETURN(PreparedInput in, prepare_input(m.model, request));
        for (const auto& named : in.gathered.inputs)
          for (const auto& d : named.defaulted) defaulted.emplace_back(m.path, d);
        sets.push_back(in.entry);
        prepared.push_back(std::move(in));
      }
      return Status::Ok();
    }();
    if (!made.ok()) {
      if (!options.leave_out_refused_models) return made;
      summary.refused_models.emplace_back(path, made.message());
      continue;
    }
    for (const auto& d : defaulted) {
      auto same = [&](const auto& x) {
        return x.first == d.first && x.second.input == d.second.input &&
               x.second.index == d.second.index;
      };
      if (std::none_of(summary.defaulted.begin(), summary.defaulted.end(), same))
        summary.defaulted.push_back(d);
    }
    model_rows.push_back(std::move(row));
    for (auto& in : prepared) {
      gathered.push_back(std::move(in.gathered));
      in.gathered.inputs.clear();
      input_rows.push_back(std::move(in));
    }
    models.push_back({hash, model_path, std::move(sets)});
  }
  if (models.empty() && !summary.refused_models.empty())
    return invalid_argument("every model was refused; the first, {}: {}",
                            summary.refused_models[0].first, summary.refused_models[0].second);
  std::vector<const GatheredInputs*> all;
  for (const auto& g : gathered) all.push_back(&g);
  IG_RETURN_IF_ERROR(sizing_fits_nothing(
      InputRequest{{}, options.shapes, options.dims, 0}, all,
      models.size() == 1 ? models[0].path : fmt::format("any of the {} models", models.size())));
  gathered.clear();
  for (const auto& [m, nodes] : model_rows) IG_RETURN_IF_ERROR(store.put_model(m, nodes));
  for (const auto& in : input_rows) IG_RETURN_IF_ERROR(store.put_input(in.stored, in.tensors));
  input_rows.clear();
  std::vector<Job> jobs;
  int64_t case_index = 0;
  for (const auto& m : models) {
    for (const auto& in : m.inputs) {
      if (case_index++ % options.shards != options.shard) continue;
      // An oracle that is also a compared platform shares that platform's repetition 0.
      const bool shared = std::find(platforms.begin(), platforms.end(), oracle) != platforms.end();
      if (!oracle.empty() && !shared) jobs.push_back({&m, &in, oracle, 0});
      for (int rep = 0; rep < options.repeat; ++rep)
        for (const auto& p : platforms) jobs.push_back({&m, &in, p, rep});
    }
  }

  summary.host = host.id;
  summary.oracle = oracle;
  StudyProgress pr;
  pr.total = summary.total = static_cast<int64_t>(jobs.size());
  // Job threads run jobs through the workers; one writer thread stores what they finish, in
  // batches: a small run's commit costs more than the run, and writing off the job threads keeps
  // both cores busy. A batch is one transaction, so a run is stored whole or not at all, and a
  // study killed before a batch is written reruns that batch's runs when resumed. `mu` guards
  // the queue, the progress counters and the next job index; only the writer touches the store
  // while jobs run.
  IG_ASSIGN_OR_RETURN(const std::set<RunKey> stored, store.run_keys(host.id));
  // Traced tensors past the budget wait for the writer in a file beside the store, not in memory.
  TraceMemory memory(in_flight_share(options.trace_budget_bytes),
                     fs::absolute(store.path()).parent_path().string());
  store.set_memory_budget(options.trace_budget_bytes);
  struct Finished {
    RunKey key;
    RunResult result;
  };
  using Clock = std::chrono::steady_clock;
  constexpr size_t kBatchRuns = 256;
  constexpr size_t kBatchBytes = size_t{32} << 20;
  constexpr auto kBatchAge = std::chrono::milliseconds(200);
  std::mutex mu;
  std::condition_variable queued, drained;
  std::vector<Finished> pending;
  size_t pending_bytes = 0;
  auto first_pending = Clock::now();
  size_t next = 0;
  int running = std::max(1, options.jobs);
  Status failed;
  auto result_bytes = [](const RunResult& r) {  // in memory: a spilled tensor is undefined
    size_t n = 0;
    for (const auto* list : {&r.outputs, &r.trace})
      for (const auto& t : *list) n += t.tensor.defined() ? t.tensor.nbytes() : 0;
    return n;
  };
  auto count_done = [&](const std::string& platform, bool executed) {  // with `mu` held
    ++(executed ? pr.executed : pr.skipped);
    ++pr.done;
    pr.current = platform;
    if (progress) progress(pr);
  };
  auto batch_ready = [&] {  // with `mu` held
    return running == 0 || pending.size() >= kBatchRuns || pending_bytes >= kBatchBytes ||
           (!pending.empty() && Clock::now() - first_pending >= kBatchAge);
  };
  auto writer = [&] {
    std::unique_lock lock(mu);
    for (;;) {
      const auto deadline = (pending.empty() ? Clock::now() : first_pending) + kBatchAge;
      queued.wait_until(lock, deadline, [&] { return !failed.ok() || batch_ready(); });
      if (!failed.ok()) return;
      if (pending.empty()) {
        if (running == 0) return;
        continue;
      }
      if (!batch_ready()) continue;  // a deadline set before the oldest pending run arrived
      std::vector<Finished> batch;
      batch.swap(pending);
      pending_bytes = 0;
      drained.notify_all();
      lock.unlock();
      std::vector<std::pair<RunKey, const RunResult*>> rows;
      rows.reserve(batch.size());
      for (const auto& f : batch) rows.emplace_back(f.key, &f.result);
      const auto t_store = Clock::now();
      auto written = store.put_runs(rows);
      const double store_seconds = std::chrono::duration<double>(Clock::now() - t_store).count();
      lock.lock();
      summary.costs.store += store_seconds;
      if (!written.ok()) {
        failed = written.status();
        drained.notify_all();
        return;
      }
      for (size_t i = 0; i < batch.size(); ++i) {
        if ((*written)[i]) ++summary.verdicts[std::string(verdict_name(batch[i].result.verdict))];
        // Another process may have written the same run meanwhile; it then counts as skipped.
        count_done(batch[i].key.platform, (*written)[i]);
      }
    }
  };
  auto work = [&] {
    std::unique_lock lock(mu);
    for (;;) {
      if (next >= jobs.size() || !failed.ok()) break;
      const Job& job = jobs[next++];
      const RunKey key{job.model->hash, job.input->hash, job.platform, host.id, job.repetition};
      if (stored.count(key)) {
        count_done(job.platform, false);
        continue;
      }
      lock.unlock();
      // Each repetition after the first starts from a fresh worker process.
      if (job.repetition > 0) pool.restart(job.platform);
      RunRequest req;
      req.platform = job.platform;
      req.model_path = job.model->path;
      req.inputs = job.input->feeds;
      req.capture.all_layers = options.all_layers;
      req.capture.verify_traces = options.verify_traces;
      req.timeout_seconds = options.timeout_seconds;
      req.max_memory_bytes = options.max_memory_bytes;
      req.trace_budget_bytes = options.trace_budget_bytes;
      req.input_flags = job.input->flags;
      const auto t_job = Clock::now();
      // Its tensors count against `memory` until the writer has stored the run and dropped it.
      RunResult result = pool.run(req, &memory);
      const double round_trip = std::chrono::duration<double>(Clock::now() - t_job).count();
      const size_t bytes = result_bytes(result);
      lock.lock();
      summary.costs.load += result.load_seconds;
      summary.costs.run += result.seconds - result.load_seconds;
      summary.costs.transfer += std::max(0.0, round_trip - result.seconds);
      // A writer behind by two batches holds the job threads back: memory stays bounded.
      drained.wait(lock, [&] {
        return !failed.ok() || (pending.size() < 2 * kBatchRuns && pending_bytes < 2 * kBatchBytes);
      });
      if (pending.empty()) first_pending = Clock::now();
      pending_bytes += bytes;
      pending.push_back({key, std::move(result)});
      if (pending.size() >= kBatchRuns || pending_bytes >= kBatchBytes) queued.notify_one();
    }
    if (--running == 0) queued.notify_one();
  };
  std::thread write_thread(writer);
  std::vector<std::thread> threads;
  for (int t = 1; t < std::max(1, options.jobs); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  write_thread.join();
  IG_RETURN_IF_ERROR(failed);
  summary.executed = pr.executed;
  summary.skipped = pr.skipped;
  summary.trace_peak_held = memory.peak_held_bytes();
  summary.trace_spilled = memory.spilled_total();
  summary.worker_peak_rss = pool.peak_rss();
  return summary;
}

}  // namespace ig

// Builds the store that the analysis benchmark times: a real all-layer study of one model on a
// few platforms (and the fp64 oracle), then each real run replicated under further platform
// labels until the store holds `platforms` compared platforms. The replicated traces are real
// computations; they share tensors with their source run, so the store grows by rows only.
//
// usage: infergap_bench_store DB MODEL PLATFORMS SPEC...
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>

#include "study/study.h"
#include "worker/host_fingerprint.h"

namespace ig {
namespace {

// The stored run read back as the RunResult a worker returned (tensors included).
Expected<RunResult> read_back(const Store& store, const StoredRun& run) {
  RunResult r;
  r.verdict = run.verdict;
  r.reason = run.reason;
  r.repro = run.repro;
  r.seconds = run.seconds;
  IG_ASSIGN_OR_RETURN(auto outputs, store.outputs(run.id));
  for (const auto& o : outputs) {
    TracedTensor t;
    t.value = o.value;
    t.node = o.node;
    t.op_type = o.op_type;
    t.node_index = o.node_index;
    t.hash = o.tensor.hash;
    t.dtype = o.tensor.dtype;
    t.shape = o.tensor.shape;
    auto tensor = store.tensor(o.tensor);
    if (tensor.ok()) t.tensor = std::move(*tensor);
    (o.is_output ? r.outputs : r.trace).push_back(std::move(t));
  }
  return r;
}

Status build(const std::string& db, const std::string& model, int platforms,
             const std::vector<std::string>& specs) {
  IG_ASSIGN_OR_RETURN(auto store, Store::open(db));
  WorkerPool pool{WorkerPoolOptions{}};
  StudyOptions o;
  o.models = {model};
  o.platforms = specs;
  o.oracle = default_oracle();
  IG_ASSIGN_OR_RETURN(auto summary, run_study(*store, pool, o, nullptr));
  IG_ASSIGN_OR_RETURN(auto runs, store->runs());
  std::vector<StoredRun> sources;
  for (const auto& r : runs)
    if (r.key.platform != o.oracle && r.verdict == Verdict::kOk) sources.push_back(r);
  if (sources.empty()) return internal_error("{}: no successful run to replicate", db);
  const int copies = platforms - static_cast<int>(sources.size());
  for (int i = 0; i < copies; ++i) {
    const StoredRun& src = sources[static_cast<size_t>(i) % sources.size()];
    IG_ASSIGN_OR_RETURN(RunResult r, read_back(*store, src));
    RunKey key = src.key;
    key.platform = fmt::format("{},replica={}", src.key.platform, i);
    IG_RETURN_IF_ERROR(store->put_platform(key.platform, key.host));
    IG_RETURN_IF_ERROR(store->put_run(key, r).status());
  }
  fmt::print("{}: {} real runs ({} executed), {} replicas, {} platforms\n", db, sources.size(),
             summary.executed, std::max(copies, 0), sources.size() + std::max(copies, 0));
  return Status::Ok();
}

}  // namespace
}  // namespace ig

int main(int argc, char** argv) {
  if (argc < 5) {
    std::cerr << "usage: infergap_bench_store DB MODEL PLATFORMS SPEC...\n";
    return 2;
  }
  const ig::Status st = ig::build(argv[1], argv[2], std::atoi(argv[3]),
                                  std::vector<std::string>(argv + 4, argv + argc));
  if (!st.ok()) {
    std::cerr << "infergap_bench_store: " << st.message() << "\n";
    return 1;
  }
  return 0;
}

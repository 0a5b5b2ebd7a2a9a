// The self-check of our adapters (docs/ORACLE.md, "Self-check"): a span of nodes
// (analysis/oracle/error_spans.h) whose output was grossly off the oracle while its inputs agreed
// is re-run alone, fed the values the platform traced at the span's inputs, twice: on the platform
// with its fusion off (platform/catalog.h, unfused_spec) and on the oracle. The re-runs are stored
// (table self_checks); analysis/self_check/verdict.h turns them into a verdict.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "platform/catalog.h"
#include "store/store.h"
#include "worker/worker_pool.h"

namespace ig {

struct SelfCheckRequest {
  int64_t run = 0;                          // the platform run
  std::string platform;                     // its spec
  std::string oracle;                       // the oracle's spec
  std::string model_path;                   // the model file (StoredModel::path)
  std::string input_set;                    // the run's input-set hash: graph inputs the span reads
  std::vector<int64_t> nodes;               // the span's nodes (graph_nodes.idx)
  std::vector<std::string> produced;        // every value the span's nodes produce
  std::map<std::string, TensorKey> inputs;  // values entering the span, as the platform traced them
  // Values the span's nodes read that no node produces: graph inputs (fed from the input set)
  // and initializers (carried by the span's model).
  std::vector<std::string> graph_inputs;
  std::string value;    // the output checked
  TensorKey value_key;  // as the platform traced it (its dtype and shape)
  // A local replay for origins (analysis/oracle/origins.h): the oracle re-run alone, no unfused
  // one.
  bool oracle_only = false;
};

struct SelfCheckSummary {
  int64_t requested = 0, executed = 0, skipped = 0;  // re-runs (two per request)
};

struct SelfCheckOptions {
  double timeout_seconds = 300;
  uint64_t max_memory_bytes = 0;
};

// The graph inputs of an input set (its hash, hex), by name, from the recipe the store keeps.
Expected<std::map<std::string, TensorKey>> input_set_keys(const Store& store,
                                                          const std::string& hash);

// Runs what is not stored yet (both re-runs, or the oracle's alone for a local replay); a re-run
// that cannot be set up (the model file moved, a span node holding a subgraph) is stored with
// verdict error and the reason.
Expected<SelfCheckSummary> run_self_checks(Store& store, WorkerPool& pool, const Catalog& catalog,
                                           const std::vector<SelfCheckRequest>& requests,
                                           const SelfCheckOptions& options);

}  // namespace ig

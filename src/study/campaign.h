// A campaign's pieces that run and store (the sequence is workflow/campaign.h): which variants a
// shard takes, and the rerun of stored runs with every layer.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "store/store.h"
#include "study/study.h"
#include "worker/worker_pool.h"

namespace ig {

// The .onnx files under each DIR (recursively) and each FILE, sorted by path and deduplicated;
// with shards > 1 only those whose content hash (XXH3-64 of the bytes) is `shard` modulo `shards`,
// so a shard's share does not depend on which other files exist or where they lie.
Expected<std::vector<std::string>> campaign_models(const std::vector<std::string>& args, int shard,
                                                   int shards);

struct TraceSummary {
  int64_t traced = 0, changed = 0;  // changed: the rerun's outputs differ (nondeterministic)
};
// Reruns the stored runs with every layer and adds those layers to them (Store::add_trace),
// holding at most `trace_budget_bytes` of a run's traced tensors in memory (the rest spilled).
Expected<TraceSummary> trace_layers(Store& store, WorkerPool& pool,
                                    const std::vector<int64_t>& runs,
                                    const std::function<void(int64_t done)>& progress,
                                    uint64_t trace_budget_bytes = kDefaultTraceBudgetBytes);

}  // namespace ig

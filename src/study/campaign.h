// A campaign: many variants on many platforms. It is a study with one input set per variant (the
// inputs the variant carries, else seeded random data) over graph outputs, followed by a rerun with
// every layer of the runs whose divergence must be located; which runs those are is the caller's
// choice (analysis/campaign.h decides it for `infergap campaign`).
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
// Reruns the stored runs with every layer and adds those layers to them (Store::add_trace).
Expected<TraceSummary> trace_layers(Store& store, WorkerPool& pool,
                                    const std::vector<int64_t>& runs,
                                    const std::function<void(int64_t done)>& progress);

struct CampaignOptions {
  StudyOptions study;  // study.all_layers = false captures graph outputs first
  // With graph outputs only: the stored runs to rerun with every layer (called after the runs).
  std::function<Expected<std::vector<int64_t>>(const Store& store, const std::string& oracle)>
      runs_needing_layers;
};

struct CampaignProgress {
  bool layers = false;  // false: the runs; true: the per-layer reruns
  int64_t done = 0, total = 0, executed = 0;
  std::string current;
};

struct CampaignSummary {
  StudySummary runs;
  TraceSummary layers;
  double runs_seconds = 0, layers_seconds = 0;
};

Expected<CampaignSummary> run_campaign(
    Store& store, WorkerPool& pool, const CampaignOptions& options,
    const std::function<void(const CampaignProgress&)>& progress);

}  // namespace ig

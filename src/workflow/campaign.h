// What `infergap campaign` does, in order: a study with one input set per variant (the inputs the
// variant carries, else seeded random data) over graph outputs, the shared store updated, a rerun
// with every layer of the runs whose divergence must be located (analysis/campaign/campaign.h
// decides which), the analysis and the report.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/campaign/campaign.h"
#include "study/campaign.h"

namespace ig {

struct CampaignPlan {
  StudyOptions study;  // study.all_layers = false captures graph outputs first
  std::string store_path;
  std::vector<std::string> presets;
  CampaignAnalysisOptions analysis;  // tolerances; the oracle and knobs are filled in here
  bool report = true;
};

struct CampaignProgress {
  bool layers = false;  // false: the runs; true: the per-layer reruns
  int64_t done = 0, total = 0, executed = 0;
  std::string current;
};

struct CampaignHooks {
  std::function<void(const CampaignProgress&)> progress;
  std::function<void(const std::string&)> note;   // a line the user must see (stderr)
  std::function<void(const std::string&)> error;  // a second error, besides the one returned
};

struct CampaignOutcome {
  StudySummary runs;
  TraceSummary layers;
  double runs_seconds = 0, layers_seconds = 0, analysis_seconds = 0;
  nlohmann::json analysis;  // analyse_campaign's
  std::string report;       // its path; "" when not written
};

Expected<CampaignOutcome> run_campaign_steps(Store& store, CampaignPlan plan,
                                             const CampaignHooks& hooks);

}  // namespace ig

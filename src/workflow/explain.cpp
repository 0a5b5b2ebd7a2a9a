#include "workflow/explain.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/explain/problem.h"
#include "analysis/study_data.h"
#include "platform/spec.h"

namespace ig {

namespace {

struct Located {
  const CaseData* c = nullptr;
  const RepRun* run = nullptr;
  std::string platform;
};

// The run to explain: --run, else the platform's (majority) run in the first case that traced
// the node.
Expected<Located> locate(const StudyData& study, ExplainRequest a, const std::string& db) {
  const auto labels = study.labels();
  a.platform = canonical_platform_label(a.platform);
  if (a.run == 0 && std::find(labels.begin(), labels.end(), a.platform) == labels.end()) {
    return invalid_argument("{}: no platform '{}' (platforms: {})", db, a.platform,
                            nlohmann::json(labels).dump());
  }
  for (const auto& c : study.cases) {
    for (const auto& [label, pc] : c.runs) {
      if (a.run != 0) {
        for (const auto& r : pc.reps) {
          if (r.run_id == a.run) return Located{&c, &r, label};
        }
        continue;
      }
      if (label != a.platform || !pc.run()) continue;
      return Located{&c, pc.run(), label};
    }
  }
  if (a.run != 0) return invalid_argument("{}: no run {}", db, a.run);
  return invalid_argument("{}: platform '{}' has no successful run", db, a.platform);
}

}  // namespace

Expected<ExplainOutcome> explain_stored_node(const Store& store, const std::string& store_name,
                                             const ExplainRequest& request) {
  IG_ASSIGN_OR_RETURN(auto study, load_study(store));
  IG_ASSIGN_OR_RETURN(Located at, locate(study, request, store_name));
  ExplainOutcome out;
  out.platform = at.platform;
  out.case_label = at.c->label();
  out.run_id = at.run->run_id;
  out.model = std::make_unique<Model>();
  IG_ASSIGN_OR_RETURN(out.problem, explain_problem(store, *at.c, *at.run, at.platform, request.node,
                                                   *out.model, out.value));
  IG_ASSIGN_OR_RETURN(out.result, explain_node(out.problem, request.max_trials, request.progress));
  return out;
}

}  // namespace ig

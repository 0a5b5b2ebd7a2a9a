// Campaign results (issue 7, docs/FORMATS.md): operator support matrix, failure
// taxonomy, discrepancy against the oracle by the op type at the divergence origin,
// compiled-versus-eager differences and exceptional-value behaviours, over every variant × platform
// run in a store. Every key of the contract is present, empty where the store has no such data.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "platform/knobs.h"
#include "store/store.h"

namespace ig {

struct CampaignAnalysisOptions {
  double rtol = 1e-3, atol = 1e-5;
  std::string oracle;  // "" = the store's oracle
  KnobTables knobs;    // the backends' (read_catalog): which knob values are eager
};

Expected<nlohmann::json> analyse_campaign(const Store& store,
                                          const CampaignAnalysisOptions& options);

// Runs whose divergence the analysis can only locate with every layer captured: multi-node
// variants discrepant against the oracle (the run and the oracle's) or differing between the
// compiled and eager mode of a backend, captured with graph outputs only so far. Store run ids.
Expected<std::vector<int64_t>> runs_needing_layers(const Store& store,
                                                   const CampaignAnalysisOptions& options);

}  // namespace ig

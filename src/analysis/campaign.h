// Campaign analysis (CAMPAIGN_CONTRACT.md): operator support matrix, failure taxonomy,
// discrepancy by origin op, compiled versus eager, exceptional values, as one JSON object whose
// keys are always present (empty where the store has no such data, e.g. a plain study).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "store/store.h"

namespace ig {

struct CampaignAnalysisOptions {
  double rtol = 1e-3, atol = 1e-5;
  std::string oracle;  // "" = the store's oracle
};

Expected<nlohmann::json> analyse_campaign(const Store& store,
                                          const CampaignAnalysisOptions& options);

}  // namespace ig

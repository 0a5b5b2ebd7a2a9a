// Terminal tables of a campaign analysis (analysis/campaign/campaign.h).
#pragma once

#include <nlohmann/json.hpp>

namespace ig::cli {

void print_campaign_tables(const nlohmann::json& analysis);

}  // namespace ig::cli

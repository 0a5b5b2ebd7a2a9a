// TEMPORARY (report branch): the empty shape of analyse_campaign's JSON, so the report renders its
// campaign sections before the campaign branch lands. The lead deletes this file at merge, when
// src/analysis/campaign.cpp provides the real analysis.
#include "analysis/campaign.h"

namespace ig {

Expected<nlohmann::json> analyse_campaign(const Store& store,
                                          const CampaignAnalysisOptions& options) {
  IG_ASSIGN_OR_RETURN(auto platforms, store.platforms());
  nlohmann::json specs = nlohmann::json::array();
  std::string oracle = options.oracle;
  for (const auto& p : platforms) {
    if (p.oracle && oracle.empty()) oracle = p.spec;
    if (!p.oracle) specs.push_back(p.spec);
  }
  return nlohmann::json{
      {"tolerance", {{"rtol", options.rtol}, {"atol", options.atol}}},
      {"oracle", oracle},
      {"variants", 0},
      {"platforms", specs},
      {"support",
       {{"ops", nlohmann::json::array()}, {"percent_supported", nlohmann::json::object()}}},
      {"failures", nlohmann::json::object()},
      {"discrepancy", nlohmann::json::object()},
      {"compiled_vs_eager", nlohmann::json::array()},
      {"exceptional", nlohmann::json::array()}};
}

}  // namespace ig

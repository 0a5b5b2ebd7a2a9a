// The report's sections: each reads one key of the report data (report_data.h) and adds escaped
// markup and charts to the page. A section whose data is absent says so instead of drawing.
#pragma once

#include <nlohmann/json.hpp>

#include "report/html_writer.h"

namespace ig {

// summary.cpp: the first section, the answer in a box linking to the sections that show it.
void summary_section(HtmlPage& page, const nlohmann::json& data);
// Hosts, platforms, models and verdicts: the reference material, last.
void overview_section(HtmlPage& page, const nlohmann::json& data);
void eqc_section(HtmlPage& page, const nlohmann::json& data);
void cumulative_section(HtmlPage& page, const nlohmann::json& data);
void layers_section(HtmlPage& page, const nlohmann::json& data);
// report_parents.cpp: derived models against their float parents (drawn only when there are some).
void parents_section(HtmlPage& page, const nlohmann::json& data);
void dendrogram_section(HtmlPage& page, const nlohmann::json& data);
void sweep_section(HtmlPage& page, const nlohmann::json& data);
void oracle_section(HtmlPage& page, const nlohmann::json& data);
void oracle_origins_section(HtmlPage& page, const nlohmann::json& data);
void origins_section(HtmlPage& page, const nlohmann::json& data);
void hosts_section(HtmlPage& page, const nlohmann::json& data);
// sections_campaign.cpp: support matrix, failure taxonomy, discrepancy, compiled vs eager,
// exceptional values (docs/FORMATS.md).
void campaign_sections(HtmlPage& page, const nlohmann::json& campaign);

// "<p class=absent>text</p>"
std::string absent(const std::string& text);
// A JSON value as table text: strings as they are, the rest as JSON.
std::string cell_text(const nlohmann::json& v);

}  // namespace ig

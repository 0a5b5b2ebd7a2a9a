// What triage writes for people: a finding's README.md from its index entry, and FINDINGS.md from
// the whole index (the list, counts per platform and per kind).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ig::triage {

std::string finding_readme(const nlohmann::json& entry);

// `note`: a paragraph on the campaign the index came from (its scale), may be "".
std::string findings_markdown(const nlohmann::json& index, const std::string& note);

}  // namespace ig::triage

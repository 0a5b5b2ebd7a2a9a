// What triage writes for people: a finding's README.md from its index entry, and FINDINGS.md from
// the whole index (the list, counts per platform and per kind).
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace ig::triage {

std::string finding_readme(const nlohmann::json& entry);

// Where FINDINGS.md's rows link: by default every row to its folder beside the file; with a base,
// only the folders in `present` (e.g. a committed sample), to BASE/<folder>/README.md, the
// others plain text.
struct FindingLinks {
  std::string base;
  std::set<std::string> present;
};

// `note`: a paragraph on the campaign the index came from (its scale), may be "".
std::string findings_markdown(const nlohmann::json& index, const std::string& note,
                              const FindingLinks& links = {});

}  // namespace ig::triage

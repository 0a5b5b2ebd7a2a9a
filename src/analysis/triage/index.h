// The findings index (DIR/findings.json): one entry per finding signature, with what README.md is
// rendered from. A later triage of the same or a grown campaign finds a known signature here and
// counts its variants and platforms into the entry instead of writing a second folder.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/triage/findings.h"

namespace ig::triage {

inline constexpr const char* kIndexFile = "findings.json";

// {"findings": [...]}; an empty index when DIR has none yet.
Expected<nlohmann::json> read_index(const std::string& dir);
Status write_index(const std::string& dir, const nlohmann::json& index);

// The entry with this signature, or null.
nlohmann::json* find_entry(nlohmann::json& index, const std::string& signature);

// "F001", "F002", ...: one past the highest id in the index.
std::string next_id(const nlohmann::json& index);

// A new entry: id, folder, signature parts, the representative hit and the counts.
nlohmann::json new_entry(const Finding& f, const std::string& id);

// Adds this triage's hits to a known entry: the union of variants, architectures and platforms,
// and one more triage run that saw it.
void count_again(nlohmann::json& entry, const Finding& f);

}  // namespace ig::triage

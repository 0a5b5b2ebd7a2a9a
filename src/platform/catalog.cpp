#include "platform/catalog.h"

#include <algorithm>
#include <set>

#include "platform/spec.h"

namespace ig {

PlatformCatalog& PlatformCatalog::global() {
  static PlatformCatalog catalog;
  return catalog;
}

void PlatformCatalog::add(const std::string& backend, Lister lister) {
  listers_.emplace_back(backend, std::move(lister));
}

std::vector<std::pair<std::string, PlatformCandidate>> PlatformCatalog::candidates() const {
  auto listers = listers_;
  // Registration order depends on static-initialisation order; names make listings stable.
  std::stable_sort(listers.begin(), listers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<std::string, PlatformCandidate>> out;
  for (const auto& [backend, list] : listers)
    for (auto& c : list()) out.emplace_back(backend, std::move(c));
  return out;
}

void join_preset(std::vector<PlatformCandidate>& list, const std::string& preset,
                 const std::vector<std::pair<std::string, int>>& members) {
  for (const auto& [spec, rank] : members) {
    for (auto& c : list) {
      if (c.spec != spec) continue;
      c.presets.push_back(preset);
      c.ranks[preset] = rank;
    }
  }
}

Expected<std::string> unfused_spec(const KnobTables& knobs, const std::string& spec) {
  IG_ASSIGN_OR_RETURN(PlatformSpec parsed, parse_platform_spec(spec));
  for (const auto& [key, value] : eager_options(knobs, parsed.backend)) parsed.options[key] = value;
  return parsed.to_string();
}

Expected<std::string> unfused_spec(const Catalog& catalog, const std::string& spec) {
  return unfused_spec(catalog.knobs, spec);
}

std::vector<std::string> Catalog::presets() const {
  std::set<std::string> names = {"all"};
  for (const auto& c : candidates) {
    names.insert(c.backend);
    names.insert(c.presets.begin(), c.presets.end());
  }
  return {names.begin(), names.end()};
}

Expected<std::vector<std::string>> preset_specs(const Catalog& catalog, const std::string& preset) {
  std::vector<std::pair<int, std::string>> ranked;
  for (const auto& c : catalog.candidates) {
    const bool in_preset = std::find(c.presets.begin(), c.presets.end(), preset) != c.presets.end();
    if ((preset == "all" && !c.hidden) || c.backend == preset || in_preset) {
      auto rank = c.ranks.find(preset);
      ranked.emplace_back(rank == c.ranks.end() ? 0 : rank->second, c.spec);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& [rank, spec] : ranked) out.push_back(std::move(spec));
  if (out.empty()) {
    std::string names;
    for (const auto& p : catalog.presets()) names += (names.empty() ? "" : ", ") + p;
    return invalid_argument("unknown preset '{}' (presets: {})", preset, names);
  }
  return out;
}

}  // namespace ig

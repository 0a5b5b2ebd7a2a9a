// The campaign's exceptional-values table (docs/CAMPAIGNS.md "Exceptional values"): per (first op
// reading an injected input, injected kinds), each platform's behaviour against the oracle.
#include <algorithm>

#include "analysis/campaign/data.h"

namespace ig::campaign {

namespace {

// What a platform did with an injected value: its failure verdict, or its graph outputs classified
// element by element against the oracle rounded to their dtype (exceptional.h), the class of
// highest precedence standing for the run.
Expected<std::string> behaviour(const Run& r, const Run* oracle, Differ& differ) {
  if (r.verdict != Verdict::kOk) return std::string(verdict_name(r.verdict));
  if (!oracle) return std::string("no-oracle");
  IG_ASSIGN_OR_RETURN(ExceptionalCounts counts, differ.against_oracle(r, *oracle));
  return std::string(exceptional_name(counts.worst()));
}

// (input name, injected kinds) of a case's input recipe (its "injections", recorded when the
// input set was made); several kinds in one input read "nan+-inf", as their effects cannot be told
// apart.
std::vector<std::pair<std::string, std::string>> injections(const Case& c) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!c.input_recipe.contains("inputs")) return out;
  for (const auto& in : c.input_recipe["inputs"]) {
    const auto injected = in.value("injections", nlohmann::json::array());
    if (!injected.is_array() || injected.empty()) continue;
    std::string kinds;
    for (const auto& k : injected) {
      const std::string kind = k.is_string() ? k.get<std::string>() : "?";
      if (("+" + kinds + "+").find("+" + kind + "+") == std::string::npos)
        kinds += (kinds.empty() ? "" : "+") + kind;
    }
    out.emplace_back(in.value("name", std::string()), kinds);
  }
  return out;
}

// The op type of the first node (topological order) that reads `value`, looking through the Cast
// and Identity wrappers a precision cast puts around the op.
std::string first_reader(const Case& c, const std::string& value, int depth = 0) {
  for (const auto& n : c.nodes) {
    if (std::find(n.inputs.begin(), n.inputs.end(), value) == n.inputs.end()) continue;
    if ((n.op_type == "Cast" || n.op_type == "Identity") && n.outputs.size() == 1 && depth < 8) {
      std::string next = first_reader(c, n.outputs[0], depth + 1);
      if (next != "(unread)") return next;
    }
    return n.op_type;
  }
  return "(unread)";
}

}  // namespace

Expected<nlohmann::json> exceptional_section(const Store& store, const Data& d,
                                             const CampaignAnalysisOptions& opt) {
  Differ differ(store, opt, false);
  // (op, value) -> platform -> behaviour -> count; and the variants in each group.
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::map<std::string, int>>>
      seen;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> variants;
  for (const auto& c : d.cases) {
    for (const auto& [input, value] : injections(c)) {
      const auto key = std::make_pair(first_reader(c, input), value);
      variants[key].insert(c.model);
      const Run* oracle = ran_ok(c, d.oracle);
      for (const auto& p : d.platforms) {
        auto it = c.runs.find(p);
        if (it == c.runs.end()) continue;
        IG_ASSIGN_OR_RETURN(std::string b, behaviour(it->second, oracle, differ));
        ++seen[key][p][b];
      }
    }
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [key, by_platform] : seen) {
    // Each platform under its most frequent behaviour in the group (ties: the first by name).
    std::map<std::string, std::vector<std::string>> behaviours;
    for (const auto& [p, counts] : by_platform) {
      auto best = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      });
      behaviours[best->first].push_back(p);
    }
    out.push_back({{"op", key.first},
                   {"value", key.second},
                   {"variants", variants[key].size()},
                   {"behaviours", behaviours}});
  }
  return out;
}

}  // namespace ig::campaign

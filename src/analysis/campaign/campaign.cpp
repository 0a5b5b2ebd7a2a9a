#include "analysis/campaign/campaign.h"

#include <algorithm>

#include "analysis/campaign/data.h"
#include "platform/spec.h"

namespace ig {

using campaign::Case;
using campaign::Data;
using campaign::Differ;
using campaign::ran_ok;
using campaign::Run;

namespace {

// The op types of the nodes the platform refused, with the reason it gave for each.
std::map<std::string, std::string> refused_ops(const Run& r) {
  std::map<std::string, std::string> out;
  for (const auto& rej : r.rejections)
    if (!rej.op_type.empty()) out.emplace(rej.op_type, rej.reason);
  return out;
}

nlohmann::json support_section(const Data& d) {
  struct Cell {
    int64_t supported = 0, unsupported = 0;
    std::set<std::string> reasons;
  };
  std::map<std::string, std::map<std::string, Cell>> cells;  // op -> platform -> cell
  for (const auto& c : d.cases) {
    std::set<std::string> ops;
    for (const auto& n : c.nodes) ops.insert(n.op_type);
    for (const auto& p : d.platforms) {
      auto it = c.runs.find(p);
      if (it == c.runs.end()) continue;
      const Run& r = it->second;
      if (r.verdict == Verdict::kUnsupported) {
        for (const auto& [op, reason] : refused_ops(r)) {
          auto& cell = cells[op][p];
          ++cell.unsupported;
          if (cell.reasons.size() < 3) cell.reasons.insert(reason.substr(0, 200));
        }
      } else if (r.verdict != Verdict::kLoadError) {
        // The backend accepted every node (a crash or error later is the failure taxonomy's).
        for (const auto& op : ops) ++cells[op][p].supported;
      }
    }
  }
  nlohmann::json out{{"ops", nlohmann::json::array()},
                     {"percent_supported", nlohmann::json::object()}};
  std::map<std::string, std::pair<int, int>> seen;  // platform -> (ops fully supported, ops seen)
  for (const auto& [op, by_platform] : cells) {
    nlohmann::json row{{"op", op}, {"platforms", nlohmann::json::object()}};
    for (const auto& [p, cell] : by_platform) {
      row["platforms"][p] = {{"supported", cell.supported},
                             {"unsupported", cell.unsupported},
                             {"reasons", cell.reasons}};
      ++seen[p].second;
      seen[p].first += cell.unsupported == 0;
    }
    out["ops"].push_back(std::move(row));
  }
  for (const auto& [p, s] : seen)
    out["percent_supported"][p] = 100.0 * s.first / std::max(1, s.second);
  return out;
}

// A run's verdict, with nan-inf for an ok run holding NaN or Inf where the oracle, rounded to the
// run's dtype, holds a finite value (or no NaN): a correctly rounded overflow is no failure.
Expected<std::string> verdict_of(Differ& differ, const Data& d, const Case& c, const Run& r) {
  const Run* o = ran_ok(c, d.oracle);
  if (r.verdict == Verdict::kOk && r.nonfinite() && o && o != &r) {
    IG_ASSIGN_OR_RETURN(ExceptionalCounts counts, differ.against_oracle(r, *o));
    if (counts.nonfinite_unlike_oracle()) return std::string("nan-inf");
  }
  return std::string(verdict_name(r.verdict));
}

Expected<nlohmann::json> failures_section(const Store& store, const Data& d,
                                          const CampaignAnalysisOptions& opt) {
  Differ differ(store, opt, false);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& p : d.platforms) {
    nlohmann::json row;
    for (const char* v :
         {"ok", "unsupported", "load-error", "crash", "timeout", "nan-inf", "error"})
      row[v] = 0;
    for (const auto& c : d.cases) {
      auto it = c.runs.find(p);
      if (it == c.runs.end()) continue;
      IG_ASSIGN_OR_RETURN(const std::string v, verdict_of(differ, d, c, it->second));
      row[v] = row.value(v, 0) + 1;
    }
    out[p] = std::move(row);
  }
  return out;
}

Expected<nlohmann::json> discrepancy_section(const Store& store, const Data& d,
                                             const CampaignAnalysisOptions& opt) {
  nlohmann::json out = nlohmann::json::object();
  Differ differ(store, opt, false);
  for (const auto& p : d.platforms) {
    int64_t compared = 0, discrepant = 0, judged = 0, lost = 0;
    std::map<std::string, int64_t> by_op, lost_by_op;
    for (const auto& c : d.cases) {
      const Run* o = ran_ok(c, d.oracle);
      const Run* r = ran_ok(c, p);
      if (!o || !r || p == d.oracle) continue;
      ++compared;
      IG_ASSIGN_OR_RETURN(bool diff, differ.outputs_differ(*r, *o));
      if (diff) {
        ++discrepant;
        ++by_op[differ.origin(c, *r, *o)];
        continue;
      }
      // Within tolerance: an elementwise operator on exact inputs is judged relatively too
      // (triage's lost-precision findings).
      const StoredNode* node = exact_input_elementwise(c);
      if (!node) continue;
      ++judged;
      IG_ASSIGN_OR_RETURN(const RelativeLoss loss, differ.relative_loss_against(*r, *o));
      if (loss.lost == 0) continue;
      ++lost;
      ++lost_by_op[node->op_type];
    }
    out[p] = {{"compared", compared},
              {"discrepant", discrepant},
              {"rate", compared ? static_cast<double>(discrepant) / compared : 0.0},
              {"by_origin_op", by_op},
              {"relative", {{"judged", judged}, {"lost", lost}, {"by_op", lost_by_op}}}};
  }
  return out;
}

Expected<nlohmann::json> compiled_vs_eager_section(const Store& store, const Data& d,
                                                   const CampaignAnalysisOptions& opt) {
  nlohmann::json out = nlohmann::json::array();
  Differ differ(store, opt, true);
  for (const auto& pair : campaign::compiled_eager_pairs(d.platforms, opt.knobs)) {
    int64_t variants = 0, differ_count = 0;
    std::map<std::string, int64_t> origins;
    for (const auto& c : d.cases) {
      const Run* a = ran_ok(c, pair.compiled);
      const Run* b = ran_ok(c, pair.eager);
      if (!a || !b) continue;
      ++variants;
      IG_ASSIGN_OR_RETURN(bool diff, differ.outputs_differ(*a, *b));
      if (!diff) continue;
      ++differ_count;
      ++origins[differ.origin(c, *a, *b)];
    }
    out.push_back({{"backend", pair.backend},
                   {"eager", pair.eager},
                   {"compiled", pair.compiled},
                   {"variants", variants},
                   {"differ", differ_count},
                   {"share", variants ? static_cast<double>(differ_count) / variants : 0.0},
                   {"origin_ops", origins}});
  }
  return out;
}

}  // namespace

namespace campaign {

namespace {

// An eager knob: its key, eager value and the value a spec that leaves it out gets.
struct ModeKnob {
  std::string backend, key, eager, fallback;
};

std::vector<ModeKnob> mode_knobs(const KnobTables& knobs) {
  std::vector<ModeKnob> out;
  for (const auto& [backend, table] : knobs)
    for (const auto& k : table)
      if (!k.eager_value.empty()) out.push_back({backend, k.key, k.eager_value, k.default_value});
  return out;
}

}  // namespace

std::vector<ModePair> compiled_eager_pairs(const std::vector<std::string>& platforms,
                                           const KnobTables& knobs) {
  std::vector<ModePair> out;
  for (const auto& knob : mode_knobs(knobs)) {
    for (const auto& eager : platforms) {
      auto es = parse_platform_spec(eager);
      if (!es.ok() || es->backend != knob.backend) continue;
      auto ev = es->options.find(knob.key);
      if (ev == es->options.end() || ev->second != knob.eager) continue;
      for (const auto& compiled : platforms) {
        auto cs = parse_platform_spec(compiled);
        if (!cs.ok() || cs->backend != knob.backend || compiled == eager) continue;
        auto cv = cs->options.find(knob.key);
        const std::string mode = cv == cs->options.end() ? knob.fallback : cv->second;
        auto rest_e = es->options, rest_c = cs->options;
        rest_e.erase(knob.key);
        rest_c.erase(knob.key);
        if (mode == knob.eager || rest_e != rest_c) continue;
        out.push_back({compiled, eager, knob.backend});
      }
    }
  }
  return out;
}

}  // namespace campaign

Expected<nlohmann::json> analyse_campaign(const Store& store,
                                          const CampaignAnalysisOptions& options) {
  IG_ASSIGN_OR_RETURN(Data d, campaign::load(store, options.oracle));
  std::set<std::string> models;
  for (const auto& c : d.cases) models.insert(c.model);
  nlohmann::json j{{"tolerance", {{"rtol", options.rtol}, {"atol", options.atol}}},
                   {"oracle", d.oracle},
                   {"variants", models.size()},
                   {"platforms", d.platforms},
                   {"support", support_section(d)}};
  IG_ASSIGN_OR_RETURN(j["failures"], failures_section(store, d, options));
  IG_ASSIGN_OR_RETURN(j["discrepancy"], discrepancy_section(store, d, options));
  IG_ASSIGN_OR_RETURN(j["compiled_vs_eager"], compiled_vs_eager_section(store, d, options));
  IG_ASSIGN_OR_RETURN(j["exceptional"], campaign::exceptional_section(store, d, options));
  IG_ASSIGN_OR_RETURN(j["precision"], campaign::precision_section(store, d));
  return j;
}

Expected<std::vector<int64_t>> runs_needing_layers(const Store& store,
                                                   const CampaignAnalysisOptions& options) {
  IG_ASSIGN_OR_RETURN(Data d, campaign::load(store, options.oracle));
  const auto pairs = campaign::compiled_eager_pairs(d.platforms, options.knobs);
  Differ tol(store, options, false), exact(store, options, true);
  std::set<int64_t> out;
  auto need = [&](const Run& a, const Run& b) {
    if (!a.has_layers) out.insert(a.id);
    if (!b.has_layers) out.insert(b.id);
  };
  for (const auto& c : d.cases) {
    int computing = 0;
    for (const auto& n : c.nodes) computing += n.op_type != "Cast" && n.op_type != "Identity";
    if (computing <= 1) continue;  // the origin of a single-op variant is its op
    const Run* o = ran_ok(c, d.oracle);
    for (const auto& p : d.platforms) {
      const Run* r = ran_ok(c, p);
      if (!o || !r || p == d.oracle) continue;
      IG_ASSIGN_OR_RETURN(bool diff, tol.outputs_differ(*r, *o));
      if (diff) need(*r, *o);
    }
    for (const auto& pair : pairs) {
      const Run* a = ran_ok(c, pair.compiled);
      const Run* b = ran_ok(c, pair.eager);
      if (!a || !b) continue;
      IG_ASSIGN_OR_RETURN(bool diff, exact.outputs_differ(*a, *b));
      if (diff) need(*a, *b);
    }
  }
  return std::vector<int64_t>(out.begin(), out.end());
}

}  // namespace ig

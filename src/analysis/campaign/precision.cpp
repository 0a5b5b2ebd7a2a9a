// The campaign's precision axis (Mind the Gap's): each derived model (`campaign --derive`, or any
// model recording its parent file, model/parent_record.h) against its parent's run on the same
// platform and input set. Per platform and derivation: how often the top-1 label of a graph output
// changes, and the median over derived models of the output SQNR against the parent (the lowest
// over a model's graph outputs). Refusals and failures of the derived model are counted apart.
#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/campaign/data.h"
#include "analysis/json_measure.h"
#include "analysis/precision/parent_compare.h"

namespace ig::campaign {

namespace {

// "int8", "int8-inputs" (quantize's inputs-only layout), "fp16", "bf16" from the stored
// lineage's derivation; "derived" for a model derived otherwise.
std::string derivation_of(const nlohmann::json& lineage) {
  if (!lineage.is_object() || !lineage.contains("variant")) return "derived";
  const auto& muts = lineage["variant"].value("mutations", nlohmann::json::array());
  for (const auto& m : muts) {
    const std::string kind = m.value("kind", "");
    if (kind == "quantize")
      return m.contains("params") && m["params"].value("layout", "") == "inputs" ? "int8-inputs"
                                                                                 : "int8";
    if (kind == "convert" && m.contains("params")) return m["params"].value("to", "derived");
  }
  return "derived";
}

struct Tally {
  int64_t variants = 0, compared = 0, refused = 0, failed = 0, parent_failed = 0, changed = 0;
  std::vector<double> sqnr;
};

// Graph outputs of the derived run against the parent's: the lowest SQNR and whether any top-1
// differs; nullopt when no output compares (another shape or dtype).
struct OutputsVsParent {
  double sqnr = std::numeric_limits<double>::infinity();
  bool top1_changed = false;
};
Expected<std::optional<OutputsVsParent>> outputs_vs_parent(TensorCache& cache, const Run& d,
                                                           const Run& p) {
  OutputsVsParent out;
  bool any = false;
  for (const auto& name : d.outputs) {
    auto pv = p.values.find(name);
    if (pv == p.values.end()) continue;
    IG_ASSIGN_OR_RETURN(Tensor td, cache.get(d.values.at(name)));
    IG_ASSIGN_OR_RETURN(Tensor tp, cache.get(pv->second));
    auto m = measure_vs_parent(td, tp, true);
    if (!m) continue;
    any = true;
    out.sqnr = std::min(out.sqnr, m->sqnr_db);
    out.top1_changed |= m->top1 == 0;
  }
  return any ? std::optional<OutputsVsParent>(out) : std::nullopt;
}

}  // namespace

double median_of(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Expected<nlohmann::json> precision_section(const Store& store, const Data& d) {
  IG_ASSIGN_OR_RETURN(auto models, store.models());
  std::map<std::string, const StoredModel*> by_hash;
  for (const auto& m : models) by_hash[m.hash] = &m;
  std::map<std::pair<std::string, std::string>, const Case*> cases;
  for (const auto& c : d.cases) cases[{c.model, c.input}] = &c;
  TensorCache cache([&store](const TensorKey& k) { return store.tensor(k); });
  std::map<std::pair<std::string, std::string>, Tally> tallies;  // (platform, derivation)
  int64_t derived = 0, orphans = 0;
  for (const auto& c : d.cases) {
    auto m = by_hash.find(c.model);
    if (m == by_hash.end()) continue;
    const auto& lin = m->second->lineage;
    if (!lin.is_object() || !lin.contains("parent")) continue;
    auto parent = cases.find({lin["parent"].value("hash", ""), c.input});
    if (parent == cases.end()) {
      ++orphans;  // its parent was not run on this input (another shard, or not in the campaign)
      continue;
    }
    ++derived;
    const std::string kind = derivation_of(lin);
    for (const auto& platform : d.platforms) {
      auto run = c.runs.find(platform);
      if (run == c.runs.end()) continue;
      Tally& t = tallies[{platform, kind}];
      ++t.variants;
      const Verdict v = run->second.verdict;
      if (v == Verdict::kUnsupported || v == Verdict::kLoadError) {
        ++t.refused;
        continue;
      }
      if (v != Verdict::kOk) {
        ++t.failed;
        continue;
      }
      const Run* p = ran_ok(*parent->second, platform);
      if (!p) {
        ++t.parent_failed;
        continue;
      }
      IG_ASSIGN_OR_RETURN(auto vs, outputs_vs_parent(cache, run->second, *p));
      if (!vs) continue;
      ++t.compared;
      t.changed += vs->top1_changed;
      t.sqnr.push_back(vs->sqnr);
    }
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, t] : tallies) {
    rows.push_back({{"platform", key.first},
                    {"derivation", key.second},
                    {"variants", t.variants},
                    {"compared", t.compared},
                    {"refused", t.refused},
                    {"failed", t.failed},
                    {"parent_failed", t.parent_failed},
                    {"top1_changed", t.changed},
                    {"top1_change_rate", t.compared ? json_measure(double(t.changed) / t.compared)
                                                    : nlohmann::json(nullptr)},
                    {"median_sqnr_db", json_measure(median_of(t.sqnr))}});
  }
  return nlohmann::json{{"derived", derived}, {"without_parent_run", orphans}, {"rows", rows}};
}

}  // namespace ig::campaign

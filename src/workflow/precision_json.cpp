// `infergap precision --json` (docs/FORMATS.md).
#include <cmath>

#include "analysis/json_measure.h"
#include "workflow/precision.h"

namespace ig {

namespace {

nlohmann::json vs_json(const std::optional<VsParent>& v) {
  if (!v) return nullptr;
  nlohmann::json j = {{"sqnr_db", json_measure(v->sqnr_db)},
                      {"rel_error", json_measure(v->rel_error)}};
  if (v->top1 >= 0) j["top1_agrees"] = v->top1 == 1;
  if (v->nonfinite) j["nonfinite"] = v->nonfinite;
  return j;
}

nlohmann::json outputs_json(const std::vector<OutputCheck>& outs) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& o : outs) {
    auto v = vs_json(o.v);
    v["value"] = o.value;
    j.push_back(std::move(v));
  }
  return j;
}

}  // namespace

nlohmann::json precision_json(const PrecisionOutcome& o, const PrecisionBound& bound) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : o.layers) {
    layers.push_back({{"value", l.value},
                      {"node", l.node},
                      {"op_type", l.op_type},
                      {"nodes", l.members},
                      {"total", vs_json(l.total)},
                      {"born_here", vs_json(l.born)},
                      {"born_share", json_measure(l.born_share())}});
  }
  nlohmann::json j = {{"platform", o.platform}, {"bound", describe_bound(bound)},
                      {"layers", layers},       {"outputs", outputs_json(o.outputs)},
                      {"meets_bound", o.meets}, {"runs", o.runs}};
  if (o.search) {
    nlohmann::json trials = nlohmann::json::array();
    for (const auto& t : o.search->trials)
      trials.push_back({{"kept", t.kept}, {"meets", t.meets}, {"how", t.how}, {"phase", t.phase}});
    j["search"] = {{"derivation", o.derivation},
                   {"found", o.search->found},
                   {"keep_in_float", o.search->kept},
                   {"greedy_prefix", o.search->prefix},
                   {"trials", trials}};
  }
  if (!o.fixed_path.empty())
    j["fixed"] = {{"path", o.fixed_path}, {"outputs", outputs_json(o.fixed_outputs)}};
  return j;
}

}  // namespace ig

#include "analysis/precision/parent_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "analysis/json_measure.h"
#include "analysis/precision/quant_views.h"
#include "model/onnx_model.h"

namespace ig {

namespace {

bool names(const CaseData& c, const std::string& model) {
  return c.model_name == model || (!model.empty() && c.model.rfind(model, 0) == 0);
}

// Argmax over the last axis agrees in every row.
bool same_top1(const Tensor& d, const Tensor& p) {
  const int64_t n = d.rank() ? d.dim(d.rank() - 1) : 1;
  if (n <= 1) return true;
  for (int64_t row = 0; row < d.numel() / n; ++row) {
    int64_t bd = 0, bp = 0;
    for (int64_t k = 1; k < n; ++k) {
      if (d.as_double(row * n + k) > d.as_double(row * n + bd)) bd = k;
      if (p.as_double(row * n + k) > p.as_double(row * n + bp)) bp = k;
    }
    if (bd != bp) return false;
  }
  return true;
}

// The model file's quantized views; none when it is no longer readable where it was studied.
std::map<std::string, QuantizedView> views_of(const std::string& path) {
  auto proto = read_model_proto(path);
  return proto.ok() ? quantized_views(proto->graph()) : std::map<std::string, QuantizedView>{};
}

// The derived run's value `v` where the next layer reads it: after its QuantizeLinear (dequantized)
// if it has one; nullopt when the run did not trace it.
Expected<std::optional<Tensor>> derived_value(
    const RepRun& a, const std::string& v,
    std::map<std::string, QuantizedView>::const_iterator view,
    const std::map<std::string, QuantizedView>& views, TensorCache& cache) {
  const bool quantized = view != views.end() && a.values.count(view->second.q_value);
  if (!quantized && !a.values.count(v)) return std::optional<Tensor>();
  IG_ASSIGN_OR_RETURN(Tensor t, cache.get(a.values.at(quantized ? view->second.q_value : v)));
  return std::optional<Tensor>(quantized ? dequantize_view(t, view->second) : std::move(t));
}

// The value `v` of the case's run on `label`; nullopt when it did not run ok or trace it.
Expected<std::optional<Tensor>> value_in(const CaseData& c, const std::string& label,
                                         const std::string& v, TensorCache& cache) {
  auto it = c.runs.find(label);
  const RepRun* r = it == c.runs.end() ? nullptr : it->second.run();
  if (!r || !r->values.count(v)) return std::optional<Tensor>();
  IG_ASSIGN_OR_RETURN(Tensor t, cache.get(r->values.at(v)));
  return std::optional<Tensor>(std::move(t));
}

// Per compared platform label, the label of the oracle run on its host (a study on one host has
// one oracle; merged stores one per host).
std::map<std::string, std::string> oracle_of_platform(const StudyData& study) {
  std::map<std::string, std::string> out;
  for (const auto& p : study.platforms)
    for (const auto& o : study.oracles)
      if (o.host == p.host || study.oracles.size() == 1) out.emplace(p.label, o.label);
  return out;
}

}  // namespace

std::optional<VsParent> measure_vs_parent(const Tensor& d, const Tensor& p, bool output) {
  if (d.shape() != p.shape() || !is_float(d.dtype()) || !is_float(p.dtype())) return {};
  double signal = 0, noise = 0, max_diff = 0, max_ref = 0;
  VsParent v;
  for (int64_t i = 0; i < d.numel(); ++i) {
    const double a = p.as_double(i), b = d.as_double(i);
    if (!std::isfinite(a)) continue;  // the parent's own Inf/NaN: not a precision error
    if (!std::isfinite(b)) {
      ++v.nonfinite;  // NaN compares false, so it would vanish from the max below
      continue;
    }
    const double e = b - a;
    signal += a * a;
    noise += e * e;
    max_diff = std::max(max_diff, std::abs(e));
    max_ref = std::max(max_ref, std::abs(a));
  }
  if (v.nonfinite) noise = max_diff = std::numeric_limits<double>::infinity();
  v.sqnr_db = noise == 0    ? std::numeric_limits<double>::infinity()
              : signal == 0 ? -std::numeric_limits<double>::infinity()
                            : 10 * std::log10(signal / noise);
  v.rel_error = max_ref > 0 ? max_diff / max_ref : max_diff;
  if (output) v.top1 = same_top1(d, p) ? 1 : 0;
  return v;
}

Expected<std::vector<ParentCase>> compare_with_parent(const StudyData& study,
                                                      const std::string& derived_model,
                                                      const std::string& parent_model,
                                                      TensorCache& cache) {
  std::vector<ParentCase> out;
  bool derived_seen = false, parent_seen = false;
  std::map<std::string, std::map<std::string, QuantizedView>> views_by_file;  // read once each
  const auto oracle_of = oracle_of_platform(study);
  for (const auto& d : study.cases) {
    if (!names(d, derived_model)) continue;
    derived_seen = true;
    for (const auto& p : study.cases) {
      if (!names(p, parent_model)) continue;
      parent_seen = true;
      if (p.input != d.input || p.model == d.model) continue;
      ParentCase pc{d.label(), p.label(), {}, {}};
      std::set<std::string> oracles_used;
      const std::set<std::string> outputs(d.outputs.begin(), d.outputs.end());
      auto file = views_by_file.find(d.model_path);
      if (file == views_by_file.end())
        file = views_by_file.emplace(d.model_path, views_of(d.model_path)).first;
      const auto& views = file->second;
      for (const auto& n : d.nodes) {
        for (const auto& v : n.outputs) {
          ParentRow row{v, n.name, n.op_type, outputs.count(v) != 0, {}, {}};
          auto view = views.find(v);
          for (const auto& [label, dr] : d.runs) {
            const RepRun* a = dr.run();
            if (!a) continue;
            IG_ASSIGN_OR_RETURN(auto td, derived_value(*a, v, view, views, cache));
            if (!td) continue;
            IG_ASSIGN_OR_RETURN(auto tp, value_in(p, label, v, cache));
            if (auto m = tp ? measure_vs_parent(*td, *tp, row.output) : std::nullopt)
              row.platforms[label] = *m;
            auto oracle = oracle_of.find(label);
            if (oracle == oracle_of.end()) continue;
            IG_ASSIGN_OR_RETURN(auto to, value_in(p, oracle->second, v, cache));
            if (auto m = to ? measure_vs_parent(*td, *to, row.output) : std::nullopt) {
              row.vs_oracle[label] = *m;
              oracles_used.insert(oracle->second);
            }
          }
          if (!row.platforms.empty() || !row.vs_oracle.empty()) pc.rows.push_back(std::move(row));
        }
      }
      pc.oracles.assign(oracles_used.begin(), oracles_used.end());
      if (pc.rows.empty()) {
        return invalid_argument(
            "{} and {}: no value of the same name and shape was traced in both (study both "
            "with --layers all; the derived model must keep the parent's names)",
            d.model_name, p.model_name);
      }
      out.push_back(std::move(pc));
    }
  }
  if (!derived_seen) return invalid_argument("the study has no model '{}'", derived_model);
  if (!parent_seen) return invalid_argument("the study has no model '{}'", parent_model);
  if (out.empty()) {
    return invalid_argument("models '{}' and '{}' share no input set: study them together",
                            derived_model, parent_model);
  }
  return out;
}

nlohmann::json parent_cases_json(const std::vector<ParentCase>& cases) {
  auto number = [](double x) -> nlohmann::json { return json_measure(x); };
  nlohmann::json j = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : c.rows) {
      auto measures = [&](const std::map<std::string, VsParent>& by_label) {
        nlohmann::json out = nlohmann::json::object();
        for (const auto& [label, v] : by_label) {
          out[label] = {{"sqnr_db", number(v.sqnr_db)}, {"rel_error", number(v.rel_error)}};
          if (v.top1 >= 0) out[label]["top1_agrees"] = v.top1 == 1;
          if (v.nonfinite) out[label]["nonfinite"] = v.nonfinite;
        }
        return out;
      };
      rows.push_back({{"value", r.value},
                      {"node", r.node},
                      {"op_type", r.op_type},
                      {"graph_output", r.output},
                      {"platforms", measures(r.platforms)},
                      {"vs_parent_oracle", measures(r.vs_oracle)}});
    }
    j.push_back({{"case", c.derived_case},
                 {"parent_case", c.parent_case},
                 {"parent_oracles", c.oracles},
                 {"layers", rows}});
  }
  return j;
}

}  // namespace ig

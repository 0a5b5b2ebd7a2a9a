#include "views/study_reports.h"

#include <algorithm>

#include "analysis/compare/data_movement.h"
#include "analysis/compare/eqc.h"
#include "analysis/compare/origins.h"
#include "analysis/hosts.h"
#include "analysis/oracle/oracle.h"
#include "analysis/precision/quant_steps.h"
#include "views/study_json.h"

namespace ig {

namespace {

// compare --layers' rows: data movement hidden unless all_nodes; each row with every platform's
// error against the oracle at the node.
Expected<nlohmann::json> layers_json(const StudyData& study, const CaseData& c,
                                     const std::vector<LayerRow>& rows, bool all_nodes,
                                     TensorCache& cache) {
  nlohmann::json out = nlohmann::json::array();
  std::map<std::string, int64_t> hidden;
  for (const auto& r : rows) {
    if (!all_nodes && copies_input_bits(r.op_type)) {
      ++hidden[r.op_type];
      continue;
    }
    nlohmann::json row = layer_json(r);
    IG_ASSIGN_OR_RETURN(auto errors, values_oracle_errors(study, c, r.values, cache));
    row["oracle_errors"] = nlohmann::json::object();
    for (const auto& [platform, e] : errors) row["oracle_errors"][platform] = error_json(e);
    // Quantized values differ by whole steps: steps instead of remaining precision.
    IG_ASSIGN_OR_RETURN(auto steps, partition_steps(c, r.partition, r.values, cache));
    IG_ASSIGN_OR_RETURN(auto oracle_steps, values_oracle_steps(study, c, r.values, cache));
    if (steps || !oracle_steps.empty()) {
      row["remaining_precision"] = -1;
      row["quantized"] = true;
      if (steps) row.update(steps_off_json(steps->steps));
      row["oracle_steps"] = nlohmann::json::object();
      for (const auto& [platform, st] : oracle_steps)
        row["oracle_steps"][platform] = steps_off_json(st);
    }
    out.push_back(row);
  }
  return nlohmann::json{{"rows", out}, {"hidden", hidden}};
}

// compare's analyses after the per-case ones: oracle ranking and origins, nondeterminism,
// tolerance advice, hosts and CPU-flag clusters.
Status add_study_wide(const StudyData& study, TensorCache& cache, nlohmann::json& j) {
  IG_ASSIGN_OR_RETURN(auto rp, precision_matrix(study, cache));
  j["rp_matrix"] = rp;
  IG_ASSIGN_OR_RETURN(auto ranking, oracle_ranking(study, cache));
  j["oracle"] = study.oracles.empty() ? nlohmann::json() : nlohmann::json(study.oracles[0].spec);
  j["oracle_ranking"] = nlohmann::json::array();
  for (const auto& e : ranking) j["oracle_ranking"].push_back(oracle_error_json(e));
  IG_ASSIGN_OR_RETURN(auto origins, oracle_origins(study, cache));
  j["oracle_origins"] = nlohmann::json::array();
  for (const auto& o : origins) j["oracle_origins"].push_back(oracle_origin_json(o));
  j["nondeterministic"] = nlohmann::json::array();
  for (const auto& n : nondeterminism(study))
    j["nondeterministic"].push_back({{"platform", n.platform},
                                     {"case", n.case_label},
                                     {"repetitions", n.repetitions},
                                     {"distribution", n.distribution}});
  IG_ASSIGN_OR_RETURN(auto tol, tolerance_advice(study, cache));
  j["tolerance"] = nlohmann::json::array();
  for (const auto& t : tol) j["tolerance"].push_back(tolerance_json(t));
  if (!cache.not_kept().empty()) j["notes"] = cache.not_kept();
  j["hosts"] = hosts_json(study);
  j["flag_clusters"] = nlohmann::json::array();
  for (const auto& fc : flag_clusters(study))
    j["flag_clusters"].push_back(
        {{"flags", fc.flags}, {"hosts", fc.hosts}, {"aligned_with_eqcs", fc.aligned}});
  return Status::Ok();
}

}  // namespace

Expected<nlohmann::json> compare_report(const StudyData& study, const CompareReportOptions& options,
                                        TensorCache& cache) {
  const bool layers = options.layers, all_nodes = options.all_nodes;
  const auto labels = study.labels();
  nlohmann::json j;
  j["platforms"] = labels;
  j["cases"] = nlohmann::json::array();
  std::vector<Partition> parts;
  std::vector<SplitAttribution> attributions;
  for (const auto& c : study.cases) {
    parts.push_back(partition_values(c, labels, c.outputs));
    IG_ASSIGN_OR_RETURN(int rp, set_precision(c, parts.back(), c.outputs, cache));
    nlohmann::json cj = case_json(c, parts.back());
    cj["remaining_precision"] = rp;
    if (layers) {
      IG_ASSIGN_OR_RETURN(auto rows, layer_table(c, labels, cache));
      IG_ASSIGN_OR_RETURN(auto lj, layers_json(study, c, rows, all_nodes, cache));
      cj["layers"] = lj["rows"];
      cj["hidden_data_movement"] = lj["hidden"];
      // The paper's Section 3 table from the specs alone (explain is `infergap attribute`'s).
      for (auto& a : attribute_splits(options.knobs, set_origins(c, labels, rows)))
        attributions.push_back(a);
    }
    j["cases"].push_back(cj);
  }
  if (layers) {
    const AttributionTable t = tabulate(attributions);
    j["attribution"] = {{"per_cause", t.per_cause},
                        {"split_count", t.splits},
                        {"unexplained", t.unexplained},
                        {"source", "knobs"}};
  }
  j["eqc_matrix"] = nlohmann::json::object();
  for (const auto& l : labels) {
    auto& row = j["eqc_matrix"][l] = nlohmann::json::array();
    for (size_t i = 0; i < study.cases.size(); ++i)
      row.push_back(eqc_cell(study.cases[i], parts[i], l).text());
  }
  IG_RETURN_IF_ERROR(add_study_wide(study, cache, j));
  return j;
}

Expected<OracleOriginsReport> oracle_origins_report(const StudyData& study, TensorCache& cache) {
  if (study.oracles.empty())
    return invalid_argument("the study has no oracle runs (study --oracle)");
  OracleOriginsReport r;
  IG_ASSIGN_OR_RETURN(r.origins, oracle_origins(study, cache, &r.largest));
  nlohmann::json j = nlohmann::json::array();
  for (const auto& o : r.origins) j.push_back(oracle_origin_json(o));
  nlohmann::json lj = nlohmann::json::array();
  for (const auto& o : r.largest) lj.push_back(oracle_origin_json(o));
  r.json = {{"oracle", study.oracles[0].spec}, {"oracle_origins", j}, {"largest_jumps", lj}};
  return r;
}

Expected<nlohmann::json> pair_origins_report(const StudyData& study, const std::string& a,
                                             const std::string& b, TensorCache& cache) {
  IG_ASSIGN_OR_RETURN(const auto cases, study_origins(study, a, b, cache));
  nlohmann::json j{{"pairs", nlohmann::json::array()}, {"set", nlohmann::json::array()}};
  for (const auto& c : cases) {
    for (const auto& po : c.pairs) {
      nlohmann::json pj{{"a", po.a},
                        {"b", po.b},
                        {"case", po.case_label},
                        {"differing_nodes", po.differing},
                        {"propagated", po.propagated},
                        {"unknown", po.unknown},
                        {"origins", nlohmann::json::array()}};
      for (const auto& o : po.induced) pj["origins"].push_back(origin_json(o));
      j["pairs"].push_back(pj);
    }
    for (const auto& s : c.splits) {
      nlohmann::json sj = origin_json(s.node);
      sj["case"] = s.case_label;
      sj["before"] = partition_json(s.before);
      sj["after"] = partition_json(s.after);
      j["set"].push_back(sj);
    }
  }
  return j;
}

nlohmann::json attribute_report(const AttributeOutcome& outcome) {
  const AttributionTable table = tabulate(outcome.splits);
  nlohmann::json splits = nlohmann::json::array();
  for (const auto& a : outcome.splits) {
    splits.push_back({{"case", a.case_label},
                      {"node_index", a.node_index},
                      {"node", a.node},
                      {"op_type", a.op_type},
                      {"side_a", a.side_a},
                      {"side_b", a.side_b},
                      {"a", a.a},
                      {"b", a.b},
                      {"causes", a.causes},
                      {"source", a.source}});
  }
  return {{"splits", splits},
          {"per_cause", table.per_cause},
          {"split_count", table.splits},
          {"unexplained", table.unexplained}};
}

Expected<StoredOutput> find_output(const std::vector<StoredOutput>& outs, const std::string& node,
                                   int64_t run) {
  for (const auto& o : outs)
    if (o.value == node) return o;
  for (const auto& o : outs)
    if (o.node == node || (!node.empty() && std::to_string(o.node_index) == node)) return o;
  return not_found("run {} has no captured output named '{}' (value name, node name or index)", run,
                   node);
}

}  // namespace ig

#include "report/report_data.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/compare/origins.h"
#include "analysis/explain/attribute.h"
#include "analysis/hosts.h"
#include "analysis/oracle/oracle.h"
#include "analysis/oracle/origins.h"
#include "report/dendrogram.h"

namespace ig {

namespace {

// A platform's classes over every case (or its verdict where it has none): platforms with equal
// signatures computed the same outputs everywhere.
std::vector<std::string> platform_signatures(const StudyData& study,
                                             const std::vector<Partition>& parts) {
  std::vector<std::string> out;
  for (const auto& p : study.platforms) {
    std::string sig;
    for (const auto& part : parts) {
      const int k = part.class_of(p.label);
      sig += k < 0 ? "-," : std::to_string(k) + ",";
    }
    out.push_back(sig);
  }
  return out;
}

}  // namespace

nlohmann::json overview_data(const Store& store, const StudyData& study) {
  nlohmann::json j{{"store", store.path()}, {"hosts", hosts_json(study)}};
  j["platforms"] = nlohmann::json::array();
  // What each platform ran, as its library said (absent from stores written before it was kept).
  std::map<std::pair<std::string, std::string>, std::string> libraries;
  if (auto known = store.platform_libraries(); known.ok()) {
    for (const auto& l : *known) libraries[{l.spec, l.host}] = l.library + " " + l.version;
  }
  for (const auto& p : study.platforms) {
    auto it = libraries.find({p.spec, p.host});
    j["platforms"].push_back({{"label", p.label},
                              {"spec", p.spec},
                              {"host", p.host},
                              {"library", it == libraries.end() ? "" : it->second}});
  }
  j["oracles"] = nlohmann::json::array();
  for (const auto& p : study.oracles) j["oracles"].push_back(p.label);
  std::map<std::string, int64_t> verdicts;
  std::map<std::string, std::set<std::string>> inputs_of_model;
  int64_t runs = 0;
  for (const auto& c : study.cases) {
    inputs_of_model[c.model_name].insert(c.input);
    for (const auto& [_, pc] : c.runs)
      for (const auto& r : pc.reps) ++verdicts[std::string(verdict_name(r.verdict))], ++runs;
  }
  j["runs"] = runs;
  j["verdicts"] = verdicts;
  j["models"] = nlohmann::json::array();
  for (const auto& [name, inputs] : inputs_of_model)
    j["models"].push_back({{"name", name}, {"inputs", inputs.size()}});
  return j;
}

Expected<nlohmann::json> eqc_data(const StudyData& study, const std::vector<Partition>& parts,
                                  TensorCache& cache) {
  nlohmann::json j{{"platforms", study.labels()}};
  j["cases"] = nlohmann::json::array();
  for (size_t i = 0; i < study.cases.size(); ++i) {
    const auto& c = study.cases[i];
    IG_ASSIGN_OR_RETURN(int rp, set_precision(c, parts[i], c.outputs, cache));
    j["cases"].push_back(
        {{"label", c.label()}, {"eqcs", parts[i].classes.size()}, {"remaining_precision", rp}});
  }
  j["cells"] = nlohmann::json::array();
  for (const auto& p : study.platforms) {
    nlohmann::json row = nlohmann::json::array();
    for (size_t i = 0; i < study.cases.size(); ++i) {
      const EqcCell cell = eqc_cell(study.cases[i], parts[i], p.label);
      row.push_back({{"text", cell.cls < 0 ? cell.verdict : class_name(cell.cls)},
                     {"new", cell.new_class},
                     {"nondeterministic", cell.nondeterministic},
                     {"ok", cell.cls >= 0}});
    }
    j["cells"].push_back(row);
  }
  return j;
}

nlohmann::json cumulative_data(const StudyData& study, const std::vector<Partition>& parts) {
  // Platforms added in study order; a class is new when no earlier platform shares its outputs
  // in every case.
  const auto sigs = platform_signatures(study, parts);
  std::set<std::string> seen;
  nlohmann::json points = nlohmann::json::array();
  for (size_t k = 0; k < sigs.size(); ++k) {
    seen.insert(sigs[k]);
    points.push_back(
        {{"platforms", k + 1}, {"platform", study.platforms[k].label}, {"eqcs", seen.size()}});
  }
  return points;
}

Expected<nlohmann::json> dendrogram_data(const StudyData& study,
                                         const std::vector<Partition>& parts, TensorCache& cache) {
  const auto sigs = platform_signatures(study, parts);
  std::vector<std::vector<size_t>> classes;  // platform indices per class, first seen first
  std::map<std::string, size_t> index;
  for (size_t p = 0; p < sigs.size(); ++p) {
    if (sigs[p].find_first_not_of("-,") == std::string::npos) continue;  // never ran ok
    auto [it, added] = index.emplace(sigs[p], classes.size());
    if (added) classes.emplace_back();
    classes[it->second].push_back(p);
  }
  nlohmann::json j{{"classes", nlohmann::json::array()}};
  std::vector<std::string> labels;
  for (size_t k = 0; k < classes.size(); ++k) {
    nlohmann::json members = nlohmann::json::array();
    for (size_t p : classes[k]) members.push_back(study.platforms[p].label);
    labels.push_back("class " + std::to_string(k + 1));
    j["classes"].push_back({{"label", labels.back()}, {"members", members}});
  }
  if (classes.size() < 2) return j;
  IG_ASSIGN_OR_RETURN(auto rp, precision_matrix(study, cache));
  std::vector<std::vector<int>> sim(classes.size(), std::vector<int>(classes.size()));
  int top = 0;
  for (const auto& row : rp)
    for (int bits : row) top = std::max(top, bits);
  for (size_t a = 0; a < classes.size(); ++a)
    for (size_t b = 0; b < classes.size(); ++b)
      sim[a][b] = a == b ? top : rp[classes[a][0]][classes[b][0]];
  const Dendrogram d = cluster_by_precision(sim);
  j["drawing"] = dendrogram_drawing(d, labels, top);
  j["merges"] = nlohmann::json::array();
  for (const auto& m : d.merges)
    j["merges"].push_back({{"a", m.a}, {"b", m.b}, {"remaining_precision", m.precision}});
  return j;
}

Expected<nlohmann::json> oracle_data(const StudyData& study, TensorCache& cache) {
  IG_ASSIGN_OR_RETURN(auto ranking, oracle_ranking(study, cache));
  nlohmann::json j{{"oracle", study.oracles.empty() ? "" : study.oracles[0].spec},
                   {"ranking", nlohmann::json::array()}};
  for (const auto& e : ranking) j["ranking"].push_back(oracle_error_json(e));
  IG_ASSIGN_OR_RETURN(auto origins, oracle_origins(study, cache));
  j["origins"] = nlohmann::json::array();
  for (const auto& o : origins) j["origins"].push_back(oracle_origin_json(o));
  return j;
}

Expected<nlohmann::json> origins_data(const StudyData& study, TensorCache& cache,
                                      const KnobTables& knobs) {
  std::map<std::string, int64_t> by_op;
  nlohmann::json nodes = nlohmann::json::array();
  std::vector<SplitAttribution> attributions;
  for (const auto& c : study.cases) {
    IG_ASSIGN_OR_RETURN(auto origins, set_origins(c, study.labels(), cache));
    for (const auto& o : origins) {
      ++by_op[o.node.op_type];
      // The causes the platforms' knobs name for the classes born here.
      std::vector<std::string> causes;
      for (const auto& a : attribute_splits(knobs, {o})) {
        attributions.push_back(a);
        for (const auto& x : a.causes)
          if (std::find(causes.begin(), causes.end(), x) == causes.end()) causes.push_back(x);
      }
      nodes.push_back({{"case", o.case_label},
                       {"node", o.node.node},
                       {"op_type", o.node.op_type},
                       {"classes_before", o.before.classes.size()},
                       {"classes_after", o.after.classes.size()},
                       {"remaining_precision", o.node.remaining_precision},
                       {"causes", causes}});
    }
  }
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& [op, n] : by_op) ops.push_back({{"op_type", op}, {"origins", n}});
  const AttributionTable t = tabulate(attributions);
  return nlohmann::json{{"by_op", ops},
                        {"nodes", nodes},
                        {"per_cause", t.per_cause},
                        {"split_count", t.splits},
                        {"unexplained", t.unexplained}};
}

nlohmann::json hosts_data(const StudyData& study) {
  nlohmann::json clusters = nlohmann::json::array();
  if (study.hosts.size() > 1)
    for (const auto& fc : flag_clusters(study))
      clusters.push_back(
          {{"flags", fc.flags}, {"hosts", fc.hosts}, {"aligned_with_eqcs", fc.aligned}});
  return {{"hosts", study.hosts.size()}, {"flag_clusters", clusters}};
}

Expected<nlohmann::json> collect_report_data(const Store& store, const ReportOptions& options) {
  IG_ASSIGN_OR_RETURN(auto study, load_study(store, options.model));
  TensorCache cache(study);
  std::vector<Partition> parts;
  for (const auto& c : study.cases) parts.push_back(partition_values(c, study.labels(), c.outputs));
  nlohmann::json j;
  j["overview"] = overview_data(store, study);
  IG_ASSIGN_OR_RETURN(j["eqc"], eqc_data(study, parts, cache));
  j["cumulative"] = cumulative_data(study, parts);
  IG_ASSIGN_OR_RETURN(j["layers"], layers_data(study, cache));
  IG_ASSIGN_OR_RETURN(j["parents"], parents_data(study, cache));
  IG_ASSIGN_OR_RETURN(j["dendrogram"], dendrogram_data(study, parts, cache));
  IG_ASSIGN_OR_RETURN(j["sweep"], sweep_data(store, study, parts, cache));
  IG_ASSIGN_OR_RETURN(j["oracle"], oracle_data(study, cache));
  IG_ASSIGN_OR_RETURN(j["label_flips"], label_flips_data(study, cache));
  IG_ASSIGN_OR_RETURN(j["origins"], origins_data(study, cache, options.campaign.knobs));
  j["nondeterministic"] = nlohmann::json::array();
  for (const auto& n : nondeterminism(study))
    j["nondeterministic"].push_back(
        {{"platform", n.platform}, {"case", n.case_label}, {"distribution", n.distribution}});
  j["hosts"] = hosts_data(study);
  IG_ASSIGN_OR_RETURN(j["campaign"], analyse_campaign(store, options.campaign));
  return j;
}

}  // namespace ig

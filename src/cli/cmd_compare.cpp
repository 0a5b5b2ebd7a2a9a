// infergap compare --store DB [--model M] [--layers [--all-nodes]] [--json | --csv]
// EQC matrix (platforms x cases), remaining-precision matrix, oracle ranking, origins against the
// oracle, nondeterminism, tolerance advice, hosts and CPU-flag clusters.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/attribute.h"
#include "analysis/data_movement.h"
#include "analysis/eqc.h"
#include "analysis/hosts.h"
#include "analysis/learn_facts.h"
#include "analysis/oracle.h"
#include "analysis/oracle_origins.h"
#include "analysis/parent_compare.h"
#include "analysis/quant_steps.h"
#include "cli/commands.h"
#include "cli/study_json.h"
#include "worker/probe.h"

namespace ig::cli {

namespace {

struct CompareOptions {
  bool layers = false, all_nodes = false;
  std::string format = "text";
  KnobTables knobs;  // the backends' (read_catalog), which name the causes of splits
};

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

// What `compare` reports, as JSON.
Expected<nlohmann::json> compare_json(const StudyData& study, const CompareOptions& options,
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
  return j;
}

Status print_compare(const StudyData& study, const CompareOptions& options) {
  const std::string& format = options.format;
  TensorCache cache(study);
  IG_ASSIGN_OR_RETURN(const nlohmann::json j, compare_json(study, options, cache));
  for (const auto& note : cache.not_kept())
    std::fprintf(stderr, "infergap compare: note: %s\n", note.c_str());
  const auto labels = study.labels();
  if (format == "json") {
    std::printf("%s\n", j.dump(2).c_str());
    return Status::Ok();
  }
  std::vector<std::string> columns;
  for (const auto& c : study.cases) columns.push_back(c.label());
  if (format == "csv") {
    print_csv_matrix("platform", labels, columns, j["eqc_matrix"]);
    return Status::Ok();
  }
  print_text_report(study, j, columns);
  return Status::Ok();
}

// compare --model DERIVED --parent PARENT: per layer, SQNR against the parent on each platform.
Status print_parent(const StudyData& study, const std::string& derived, const std::string& parent,
                    bool json) {
  TensorCache cache(study);
  IG_ASSIGN_OR_RETURN(auto cases, compare_with_parent(study, derived, parent, cache));
  if (json) {
    std::printf(
        "%s\n",
        nlohmann::json{{"parent", parent}, {"cases", parent_cases_json(cases)}}.dump(2).c_str());
    return Status::Ok();
  }
  for (const auto& c : cases) {
    std::set<std::string> platforms;
    for (const auto& r : c.rows)
      for (const auto& [label, _] : r.platforms) platforms.insert(label);
    std::printf("%s against its parent %s: SQNR (dB) of each layer on the same platform\n",
                c.derived_case.c_str(), c.parent_case.c_str());
    int column = 0;
    for (const auto& p : platforms) std::printf("  [%d] %s\n", ++column, p.c_str());
    std::printf("  %-48s", "node (op)");
    for (int i = 1; i <= column; ++i) std::printf(" %8s", fmt::format("[{}]", i).c_str());
    std::printf("\n");
    for (const auto& r : c.rows) {
      const std::string label = r.node + " (" + r.op_type + ")";
      std::printf("  %-48.48s", label.c_str());
      for (const auto& p : platforms) {
        auto it = r.platforms.find(p);
        std::printf(" %8s", it == r.platforms.end() ? "-"
                            : std::isinf(it->second.sqnr_db)
                                ? (it->second.sqnr_db > 0 ? "equal" : "-inf")
                                : fmt::format("{:.1f}", it->second.sqnr_db).c_str());
      }
      std::printf("\n");
    }
    for (const auto& r : c.rows) {
      if (!r.output) continue;
      for (const auto& [p, v] : r.platforms)
        std::printf("  output %s on %s: SQNR %.1f dB, relative error %.3g, top-1 %s\n",
                    r.value.c_str(), p.c_str(), v.sqnr_db, v.rel_error,
                    v.top1 == 1 ? "agrees" : "differs");
    }
  }
  return Status::Ok();
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string store, model, parent;
    bool layers = false, all_nodes = false, json = false, csv = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "compare", "Equivalence classes, remaining precision and oracle ranking of a study");
  cmd->add_option("--store", args->store, "Study store")->required();
  cmd->add_option("--model", args->model, "Only this model (name or hash prefix)");
  cmd->add_option("--parent", args->parent,
                  "With --model (a quantized or converted model): its float parent, studied on the "
                  "same inputs; per layer, SQNR against the parent on each platform")
      ->needs(cmd->get_option("--model"));
  cmd->add_flag("--layers", args->layers,
                "Per-layer EQC count, remaining precision, splits and error against the oracle");
  cmd->add_flag("--all-nodes", args->all_nodes,
                "With --layers: also the data-movement nodes (Reshape, Transpose, Concat, ...), "
                "hidden by default");
  auto* json = cmd->add_flag("--json", args->json, "Print everything as JSON");
  cmd->add_flag("--csv", args->csv, "Print the EQC matrix as CSV")->excludes(json);
  cmd->callback([args, &exit_code] {
    Status st = [&]() -> Status {
      IG_ASSIGN_OR_RETURN(auto store, open_existing_store(args->store));
      if (!args->parent.empty()) {
        IG_ASSIGN_OR_RETURN(auto both, load_study(*store, ""));
        return print_parent(both, args->model, args->parent, args->json);
      }
      IG_ASSIGN_OR_RETURN(auto study, load_study(*store, args->model));
      CompareOptions options{args->layers,
                             args->all_nodes,
                             args->json  ? "json"
                             : args->csv ? "csv"
                                         : "text",
                             {}};
      if (args->layers) {
        IG_ASSIGN_OR_RETURN(const Catalog catalog, read_catalog(default_worker_executable()));
        options.knobs = catalog.knobs;
      }
      IG_RETURN_IF_ERROR(print_compare(study, options));
      keep_tensor_facts(*store, study, "compare");
      return Status::Ok();
    }();
    if (!st.ok()) {
      std::fprintf(stderr, "infergap compare: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli

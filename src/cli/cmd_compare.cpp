// infergap compare --store DB [--model M] [--layers [--all-nodes]] [--json | --csv]
// EQC matrix (platforms x cases), remaining-precision matrix, oracle ranking, origins against the
// oracle, nondeterminism, tolerance advice, hosts and CPU-flag clusters.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/precision/parent_compare.h"
#include "cli/commands.h"
#include "core/strings.h"
#include "study/restore_tensors.h"
#include "views/study_json.h"
#include "workflow/compare.h"

namespace ig::cli {

namespace {

// compare's views of what workflow/compare.h computed: JSON, the EQC matrix as CSV, or text.
void print_compare(const CompareOutcome& outcome, const std::string& format) {
  for (const auto& note : outcome.not_kept)
    std::fprintf(stderr, "infergap compare: note: %s\n", note.c_str());
  const StudyData& study = outcome.study;
  const nlohmann::json& j = outcome.report;
  if (format == "json") {
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::vector<std::string> columns;
  for (const auto& c : study.cases) columns.push_back(c.label());
  if (format == "csv") {
    print_csv_matrix("platform", study.labels(), columns, j["eqc_matrix"]);
    return;
  }
  print_text_report(study, j, columns);
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
  auto cell = [](const std::map<std::string, VsParent>& m, const std::string& p) -> std::string {
    auto it = m.find(p);
    if (it == m.end()) return "-";
    if (std::isinf(it->second.sqnr_db)) return it->second.sqnr_db > 0 ? "equal" : "-inf";
    return fmt::format("{:.1f}", it->second.sqnr_db);
  };
  for (const auto& c : cases) {
    std::set<std::string> platforms, vs_oracle;
    for (const auto& r : c.rows) {
      for (const auto& [label, _] : r.platforms) platforms.insert(label);
      for (const auto& [label, _] : r.vs_oracle) vs_oracle.insert(label);
    }
    std::printf("%s against its parent %s: SQNR (dB) of each layer on the same platform%s\n",
                c.derived_case.c_str(), c.parent_case.c_str(),
                vs_oracle.empty() ? "" : ", and against the parent on the oracle (o)");
    int column = 0;
    for (const auto& p : platforms) std::printf("  [%d] %s\n", ++column, p.c_str());
    int ocolumn = 0;
    for (const auto& p : vs_oracle)
      std::printf("  [o%d] %s against %s\n", ++ocolumn, p.c_str(), join_names(c.oracles).c_str());
    std::printf("  %-48s", "node (op)");
    for (int i = 1; i <= column; ++i) std::printf(" %8s", fmt::format("[{}]", i).c_str());
    for (int i = 1; i <= ocolumn; ++i) std::printf(" %8s", fmt::format("[o{}]", i).c_str());
    std::printf("\n");
    for (const auto& r : c.rows) {
      const std::string label = r.node + " (" + r.op_type + ")";
      std::printf("  %-48.48s", label.c_str());
      for (const auto& p : platforms) std::printf(" %8s", cell(r.platforms, p).c_str());
      for (const auto& p : vs_oracle) std::printf(" %8s", cell(r.vs_oracle, p).c_str());
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
      IG_ASSIGN_OR_RETURN(auto store, open_store_restoring(args->store, "compare"));
      if (!args->parent.empty()) {
        IG_ASSIGN_OR_RETURN(auto both, load_study(*store, ""));
        return print_parent(both, args->model, args->parent, args->json);
      }
      IG_ASSIGN_OR_RETURN(
          const CompareOutcome outcome,
          compare_study(*store, CompareRequest{args->model, args->layers, args->all_nodes}));
      print_compare(outcome, args->json ? "json" : args->csv ? "csv" : "text");
      return Status::Ok();
    }();
    if (!st.ok()) {
      std::fprintf(stderr, "infergap compare: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli

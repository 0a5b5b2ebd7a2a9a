// infergap triage --store DB -o DIR [--json] [--markdown FILE [--note TEXT] [--link-base B]]
//                 [--rtol R] [--atol A]
// infergap triage -o DIR --rewrite-repro: the present folders' repro.sh, written again
// A campaign's failures and discrepancies as distinct findings, one folder each under DIR
// (workflow/triage.h); with --markdown, FINDINGS.md rendered from DIR's index (alone when no
// --store is given).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "analysis/triage/index.h"
#include "analysis/triage/markdown.h"
#include "cli/commands.h"
#include "views/study_json.h"
#include "workflow/triage.h"

namespace ig::cli {

namespace {

struct TriageArgs {
  std::string store, out, markdown, note, oracle, link_base;
  bool rewrite_repro = false;
  double rtol = 1e-3, atol = 1e-5;
  size_t explain_trials = 60;
  double reduce_timeout = 120;
  bool json = false;
};

nlohmann::json listing(const nlohmann::json& index, const TriageOutcome* o) {
  nlohmann::json j{{"findings", nlohmann::json::array()}};
  if (o) {
    j["new"] = o->new_findings;
    j["known"] = o->known_findings;
  }
  for (const auto& e : index["findings"]) {
    nlohmann::json row;
    for (const char* k : {"id", "folder", "signature", "family", "kind", "op", "platforms",
                          "variant_count", "architecture_count", "hits", "triage_runs"})
      row[k] = e.value(k, nlohmann::json());
    row["verdict"] = e.value("judgement", nlohmann::json::object()).value("verdict", "");
    row["reduced_nodes"] =
        e.value("reduced", nlohmann::json::object()).value("nodes", nlohmann::json::array()).size();
    j["findings"].push_back(std::move(row));
  }
  return j;
}

Status write_markdown(const TriageArgs& a, const nlohmann::json& index) {
  triage::FindingLinks links;
  links.base = a.link_base;
  if (!links.base.empty()) {  // the folders present under BASE, relative to the markdown file
    const std::filesystem::path base =
        std::filesystem::path(a.markdown).parent_path() / a.link_base;
    for (const auto& e : index["findings"])
      if (std::filesystem::exists(base / e.value("folder", std::string()) / "README.md"))
        links.present.insert(e.value("folder", std::string()));
  }
  std::ofstream out(a.markdown);
  out << triage::findings_markdown(index, a.note, links);
  if (!out) return io_error("{}: cannot write", a.markdown);
  return Status::Ok();
}

Status run(const TriageArgs& a) {
  nlohmann::json index;
  TriageOutcome outcome;
  const bool triaged = !a.store.empty();
  if (triaged) {
    IG_RETURN_IF_ERROR(open_existing_store(a.store).status());  // a typo must not make a store
    TriagePlan plan;
    plan.store_path = a.store;
    plan.out_dir = a.out;
    plan.options.analysis.rtol = a.rtol;
    plan.options.analysis.atol = a.atol;
    plan.options.analysis.oracle = a.oracle;
    plan.explain_trials = a.explain_trials;
    plan.reduce_timeout = a.reduce_timeout;
    if (::isatty(2))
      plan.progress = [](const std::string& s) { std::fprintf(stderr, "triage: %s\n", s.c_str()); };
    IG_ASSIGN_OR_RETURN(outcome, run_triage(plan));
    index = outcome.index;
  } else if (a.rewrite_repro) {
    IG_ASSIGN_OR_RETURN(const int n, rewrite_repro_scripts(a.out, a.rtol, a.atol));
    IG_ASSIGN_OR_RETURN(index, triage::read_index(a.out));
    if (!a.json) std::printf("%s: wrote %d repro.sh\n", a.out.c_str(), n);
  } else {
    if (a.markdown.empty())
      return invalid_argument("give --store, --rewrite-repro, or --markdown FILE alone");
    IG_ASSIGN_OR_RETURN(index, triage::read_index(a.out));
  }
  if (!a.markdown.empty()) IG_RETURN_IF_ERROR(write_markdown(a, index));
  if (a.json) {
    std::printf("%s\n", listing(index, triaged ? &outcome : nullptr).dump(2).c_str());
    return Status::Ok();
  }
  if (triaged)
    std::printf("%s: %lld new finding(s), %lld known finding(s) counted again\n", a.out.c_str(),
                static_cast<long long>(outcome.new_findings),
                static_cast<long long>(outcome.known_findings));
  for (const auto& e : index["findings"])
    std::printf("  %s %-20s %-28s %-10s %3lld variant(s)  %s\n", e.value("id", "").c_str(),
                e.value("kind", "").c_str(), e.value("op", "").substr(0, 28).c_str(),
                e.value("family", "").c_str(), static_cast<long long>(e.value("variant_count", 0)),
                e.value("judgement", nlohmann::json::object()).value("verdict", "").c_str());
  if (!a.markdown.empty()) std::printf("wrote %s\n", a.markdown.c_str());
  return Status::Ok();
}

}  // namespace

void add_triage_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<TriageArgs>();
  auto* cmd = app.add_subcommand(
      "triage", "A campaign's failures and discrepancies as distinct, reduced, explained findings");
  cmd->add_option("--store", a->store, "Campaign store (SQLite)");
  cmd->add_option("-o,--out", a->out,
                  "Findings folder: one folder per finding and the index findings.json")
      ->required();
  cmd->add_option("--markdown", a->markdown, "Also write FINDINGS.md (the list and counts) here");
  cmd->add_option("--note", a->note, "A paragraph for FINDINGS.md (e.g. the campaign's scale)");
  cmd->add_option("--link-base", a->link_base,
                  "With --markdown: link only the rows whose folder is in this folder (relative "
                  "to the markdown file, e.g. a committed sample); the others plain text");
  cmd->add_flag("--rewrite-repro", a->rewrite_repro,
                "Without --store: write every present folder's repro.sh again with this "
                "version's script");
  cmd->add_option("--oracle", a->oracle, "Oracle platform (default: the store's)");
  cmd->add_option("--rtol", a->rtol, "Relative tolerance against the oracle")
      ->capture_default_str();
  cmd->add_option("--atol", a->atol, "Absolute tolerance against the oracle")
      ->capture_default_str();
  cmd->add_option("--explain-trials", a->explain_trials,
                  "explain's configurations per finding at most")
      ->capture_default_str();
  cmd->add_option("--reduce-timeout", a->reduce_timeout, "Seconds per run while reducing")
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "List the findings as JSON");
  cmd->callback([a, &exit_code] {
    if (Status st = run(*a); !st.ok()) {
      std::fprintf(stderr, "infergap triage: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
}

}  // namespace ig::cli

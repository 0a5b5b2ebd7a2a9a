// infergap attribute --store DB [--model M] [--no-explain] [--max-trials N] [--json]
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "study/restore_tensors.h"
#include "views/study_json.h"
#include "views/study_reports.h"
#include "worker/probe.h"
#include "workflow/attribute.h"

namespace ig::cli {

namespace {

struct AttributeArgs {
  std::string store, model;
  bool json = false, no_explain = false;
  size_t max_trials = 120;
  int64_t max_elements = 1 << 20;
};

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

Status run_attribute(const AttributeArgs& args) {
  IG_ASSIGN_OR_RETURN(auto store, open_store_restoring(args.store, "attribute"));
  IG_ASSIGN_OR_RETURN(const Catalog catalog, read_catalog(default_worker_executable()));
  AttributeOptions options{args.model,        !args.no_explain, args.max_trials,
                           args.max_elements, catalog.knobs,    nullptr};
  if (::isatty(2)) {
    options.explaining = [](const std::string& platform, const std::string& node) {
      std::fprintf(stderr, "\rattribute: explaining %s at %s\033[K", platform.c_str(),
                   node.c_str());
    };
  }
  IG_ASSIGN_OR_RETURN(const AttributeOutcome outcome, attribute_study(*store, options));
  const auto& all = outcome.splits;
  if (::isatty(2)) std::fprintf(stderr, "\r\033[K");
  // Splits between libraries then keep the coarse cause `library`: say why they were not refined.
  if (!outcome.not_kept.empty())
    std::fprintf(
        stderr, "infergap attribute: note: explain could not refine splits between libraries: %s\n",
        outcome.not_kept.c_str());
  const AttributionTable table = tabulate(all);
  if (args.json) {
    std::printf("%s\n", attribute_report(outcome).dump(2).c_str());
    return Status::Ok();
  }
  std::printf("Where classes are born and why: %lld split(s) over %zu case(s)\n",
              static_cast<long long>(table.splits), outcome.cases);
  for (const auto& a : all) {
    std::printf("  %s  %s (%s): {%s} | {%s}: %s%s\n", a.case_label.c_str(), a.node.c_str(),
                a.op_type.c_str(), join(a.side_a, ", ").c_str(), join(a.side_b, ", ").c_str(),
                a.causes.empty() ? "no cause found" : join(a.causes, ", ").c_str(),
                a.source == "explain" ? " (explain)" : "");
  }
  if (table.splits > 0)
    std::printf("Splits per cause (a split with two causes counts for both):\n");
  for (const auto& [cause, n] : table.per_cause) {
    std::printf("  %-20s %lld\n", cause.c_str(), static_cast<long long>(n));
  }
  if (table.splits == 0) {
    std::printf(
        "No class splits at any captured node (a study with --layers all captures every "
        "node; one platform, or platforms that agree everywhere, give none).\n");
  } else if (table.unexplained == 0) {
    std::printf("Every split has a cause.\n");
  } else {
    std::printf("%lld split(s) without a cause.\n", static_cast<long long>(table.unexplained));
  }
  return Status::Ok();
}

}  // namespace

void add_attribute_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<AttributeArgs>();
  auto* cmd = app.add_subcommand(
      "attribute",
      "For every EQC split (where a class is born), the cause: the knobs in which the "
      "platforms on either side differ, confirmed by explain between libraries");
  cmd->add_option("--store", args->store, "Study store (SQLite file)")->required();
  cmd->add_option("--model", args->model, "Only this model (name or hash prefix)");
  cmd->add_flag("--no-explain", args->no_explain,
                "Between two libraries, say `library` without running explain");
  cmd->add_option("--max-trials", args->max_trials, "explain's configurations per side")
      ->capture_default_str();
  cmd->add_option("--max-elements", args->max_elements,
                  "explain only nodes with at most this many output elements")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->callback([args, &exit_code] {
    Status st = run_attribute(*args);
    if (!st.ok()) {
      std::fprintf(stderr, "infergap attribute: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli

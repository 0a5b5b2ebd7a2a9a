// infergap explain --store DB --platform P --node N [--run R] [--max-trials N] [--json]
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "analysis/explain.h"
#include "analysis/explain_problem.h"
#include "analysis/study_data.h"
#include "cli/commands.h"
#include "cli/study_json.h"

namespace ig::cli {

namespace {

struct ExplainArgs {
  std::string store, platform, node;
  int64_t run = 0;
  size_t max_trials = 400;
  bool json = false;
};

struct Located {
  const CaseData* c = nullptr;
  const RepRun* run = nullptr;
  std::string platform;
};

// The run to explain: --run, else the platform's (majority) run in the first case that traced
// the node.
Expected<Located> locate(const StudyData& study, const ExplainArgs& a, const std::string& db) {
  const auto labels = study.labels();
  if (a.run == 0 && std::find(labels.begin(), labels.end(), a.platform) == labels.end()) {
    return invalid_argument("{}: no platform '{}' (platforms: {})", db, a.platform,
                            nlohmann::json(labels).dump());
  }
  for (const auto& c : study.cases) {
    for (const auto& [label, pc] : c.runs) {
      if (a.run != 0) {
        for (const auto& r : pc.reps) {
          if (r.run_id == a.run) return Located{&c, &r, label};
        }
        continue;
      }
      if (label != a.platform || !pc.run()) continue;
      return Located{&c, pc.run(), label};
    }
  }
  if (a.run != 0) return invalid_argument("{}: no run {}", db, a.run);
  return invalid_argument("{}: platform '{}' has no successful run", db, a.platform);
}

nlohmann::json trial_json(const ExplainTrial& t) {
  nlohmann::json j{{"emulator", t.emulator}, {"exact", t.exact}};
  if (!t.error.empty()) {
    j["error"] = t.error;
  } else {
    j["remaining_precision"] = t.remaining_precision;
    j["differing"] = t.differing;
  }
  return j;
}

Status run_explain(const ExplainArgs& a) {
  IG_ASSIGN_OR_RETURN(auto store, open_existing_store(a.store));
  IG_ASSIGN_OR_RETURN(auto study, load_study(*store));
  IG_ASSIGN_OR_RETURN(Located at, locate(study, a, a.store));
  Model model;
  std::string value;
  IG_ASSIGN_OR_RETURN(ExplainProblem p,
                      explain_problem(*store, *at.c, *at.run, at.platform, a.node, model, value));
  const bool tty = ::isatty(2);
  auto progress = [&](size_t n, const ExplainTrial& t) {
    if (tty)
      std::fprintf(stderr, "\rexplain: %zu configurations tried (%s)\033[K", n, t.emulator.c_str());
  };
  IG_ASSIGN_OR_RETURN(ExplainResult r, explain_node(p, a.max_trials, progress));
  if (tty) std::fprintf(stderr, "\r\033[K");
  const int64_t elements = p.target.numel();
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : r.tried) trials.push_back(trial_json(t));
  nlohmann::json j{{"platform", at.platform},
                   {"run", at.run->run_id},
                   {"case", at.c->label()},
                   {"node", p.node->name},
                   {"op_type", p.node->op_type},
                   {"value", value},
                   {"fused_group", p.group},
                   {"match", r.exact ? "exact" : "closest"},
                   {"emulator", r.emulator},
                   {"remaining_precision", r.remaining_precision},
                   {"mantissa_bits", r.mantissa_bits},
                   {"differing", r.differing},
                   {"elements", elements},
                   {"cause", r.causes},
                   {"tried", r.tried.size()},
                   {"trials", trials}};
  if (a.json) {
    std::printf("%s\n", j.dump(2).c_str());
    return Status::Ok();
  }
  std::printf("%s, node %s (%s) of run %lld, case %s:\n", at.platform.c_str(), p.node->name.c_str(),
              p.node->op_type.c_str(), static_cast<long long>(at.run->run_id),
              at.c->label().c_str());
  if (!p.group.empty()) {
    std::printf(
        "  fused by the platform into one call with %s: the group re-run as one model, "
        "compared at %s\n",
        p.group.c_str(), value.c_str());
  }
  if (r.exact) {
    std::printf("  reproduced bit for bit by %s\n", r.emulator.c_str());
  } else {
    std::printf(
        "  not reproduced exactly; closest: %s (%d of %d mantissa bits agree, %lld of %lld "
        "elements differ)\n",
        r.emulator.c_str(), r.remaining_precision, j["mantissa_bits"].get<int>(),
        static_cast<long long>(r.differing), static_cast<long long>(elements));
  }
  std::string causes;
  for (const auto& c : r.causes) causes += (causes.empty() ? "" : ", ") + c;
  const char* no_cause = r.exact ? "none (the reference's own order: sequential sums, no FMA)"
                                 : "not found (no configuration came closer than the "
                                   "reference's own order)";
  std::printf("  cause: %s\n", causes.empty() ? no_cause : causes.c_str());
  std::printf("  %zu configurations tried\n", r.tried.size());
  return Status::Ok();
}

}  // namespace

void add_explain_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExplainArgs>();
  auto* cmd = app.add_subcommand(
      "explain",
      "Which emulator configuration reproduces a platform's output of one node, and the cause");
  cmd->add_option("--store", args->store, "Study store (SQLite file)")->required();
  cmd->add_option("--platform", args->platform, "The platform whose output to explain");
  cmd->add_option("--node", args->node, "Node name, or the name of a value it produces")
      ->required();
  cmd->add_option("--run", args->run, "A run id instead of the platform's first case");
  cmd->add_option("--max-trials", args->max_trials, "Configurations to try at most")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->callback([args, &exit_code] {
    if (args->platform.empty() && args->run == 0) {
      std::fprintf(stderr, "infergap explain: give --platform or --run\n");
      exit_code = kExitBadInput;
      return;
    }
    Status st = run_explain(*args);
    if (!st.ok()) {
      std::fprintf(stderr, "infergap explain: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli

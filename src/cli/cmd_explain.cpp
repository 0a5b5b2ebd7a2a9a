// infergap explain --store DB --platform P --node N [--run R] [--max-trials N] [--json]
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "study/restore_tensors.h"
#include "views/study_json.h"
#include "workflow/explain.h"

namespace ig::cli {

namespace {

struct ExplainArgs {
  std::string store, platform, node;
  int64_t run = 0;
  size_t max_trials = 400;
  bool json = false;
};

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
  IG_ASSIGN_OR_RETURN(auto store, open_store_restoring(a.store, "explain"));
  const bool tty = ::isatty(2);
  ExplainRequest request{a.platform, a.node, a.run, a.max_trials, nullptr};
  if (tty) {
    request.progress = [](size_t n, const ExplainTrial& t) {
      std::fprintf(stderr, "\rexplain: %zu configurations tried (%s)\033[K", n, t.emulator.c_str());
    };
  }
  IG_ASSIGN_OR_RETURN(const ExplainOutcome o, explain_stored_node(*store, a.store, request));
  if (tty) std::fprintf(stderr, "\r\033[K");
  const ExplainProblem& p = o.problem;
  const ExplainResult& r = o.result;
  const std::string& value = o.value;
  const int64_t elements = p.target.numel();
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : r.tried) trials.push_back(trial_json(t));
  nlohmann::json j{{"platform", o.platform},
                   {"run", o.run_id},
                   {"case", o.case_label},
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
  std::printf("%s, node %s (%s) of run %lld, case %s:\n", o.platform.c_str(), p.node->name.c_str(),
              p.node->op_type.c_str(), static_cast<long long>(o.run_id), o.case_label.c_str());
  if (!p.group.empty()) {
    std::printf(
        "  fused by the platform into one call with %s: the group re-run as one model, "
        "compared at %s\n",
        p.group.c_str(), value.c_str());
  }
  if (r.exact) {
    std::printf("  reproduced bit for bit by %s\n", r.emulator.c_str());
  } else if (r.mantissa_bits <= 0) {  // an integer output (a quantized group): no mantissa
    std::printf("  not reproduced exactly; closest: %s (%lld of %lld elements differ)\n",
                r.emulator.c_str(), static_cast<long long>(r.differing),
                static_cast<long long>(elements));
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

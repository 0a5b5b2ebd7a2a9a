// infergap study --model M... -p SPEC... --store DB [--input NAME=SPEC...] [--shape NAME=DIMS...]
//   [--dim SYMBOL=SIZE...] [--inputs N]
//   [--seed S] [--oracle SPEC] [--repeat N] [--layers all|outputs] [--timeout S]
//   [--max-memory SIZE] [--trace-budget SIZE] [--keep-tensors origins|classes|none] [--no-report]
//   [--no-self-check] [--json] (writes <store dir>/report.html at the end unless --no-report)
// infergap merge A.db B.db ... -o C.db [--json]
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/fleet_plan.h"
#include "cli/input_options.h"
#include "cli/limit_options.h"
#include "cli/peak_memory.h"
#include "store/pg_store.h"
#include "study/restore_tensors.h"
#include "study/study.h"
#include "views/progress.h"
#include "workflow/merge.h"
#include "workflow/study.h"

namespace ig::cli {

namespace fs = std::filesystem;

namespace {

// The study's outcome as `--json` prints it.
nlohmann::json study_outcome_json(const std::string& store, const StudyOutcome& o) {
  const StudySummary& s = o.summary;
  nlohmann::json j{
      {"store", redact_url(store)},  {"host", s.host},
      {"oracle", s.oracle},          {"runs_total", s.total},
      {"runs_executed", s.executed}, {"runs_skipped", s.skipped},
      {"verdicts", s.verdicts},      {"defaulted_dims", announce_defaulted("study", s.defaulted)}};
  if (o.self_checks)
    j["self_checks"] = {{"requested", o.self_checks->requested},
                        {"executed", o.self_checks->executed},
                        {"skipped", o.self_checks->skipped}};
  if (o.dropped)
    j["tensors_dropped"] = {{"tensors", o.dropped->tensors}, {"bytes", o.dropped->bytes}};
  if (!o.report.empty()) j["report"] = o.report;
  j["peak_rss"] = peak_rss_json(s);
  j["trace_memory"] = trace_memory_json(s);
  return j;
}

void print_study_outcome(const std::string& store, const StudyOutcome& o) {
  const StudySummary& s = o.summary;
  std::printf("%s: %lld runs executed, %lld already stored (host %s)\n", redact_url(store).c_str(),
              static_cast<long long>(s.executed), static_cast<long long>(s.skipped),
              s.host.c_str());
  if (!o.report.empty()) std::printf("report: %s\n", o.report.c_str());
  if (o.self_checks && o.self_checks->requested > 0)
    std::printf(
        "self-check: %lld re-run(s) of grossly-off spans and local replays, %lld already "
        "stored\n",
        static_cast<long long>(o.self_checks->executed),
        static_cast<long long>(o.self_checks->skipped));
  for (const auto& [v, n] : s.verdicts)
    std::printf("  %-12s %lld\n", v.c_str(), static_cast<long long>(n));
  std::printf("%s\n", peak_memory_text(s).c_str());
}

struct StudyArgs {
  StudyOptions opt;
  std::string oracle = "default";
  std::string layers = "all";
  std::string store = "infergap-study.db";
  std::vector<std::string> presets;
  std::string shard = "0/1";
  PlanArgs plan;
  LimitArgs limits;
  TraceBudgetArg trace_budget;
  bool json = false, no_report = false, no_self_check = false;
  std::string keep_tensors = "origins";
  std::vector<std::string> parents;  // --parent: studied beside the models, on the same inputs
};

// --parent FLOAT, or the parent each model's lineage names (workflow/study.h).
void add_parents(StudyArgs& a) {
  auto found = with_recorded_parents(a.opt.models, a.parents, [](const std::string& note) {
    std::fprintf(stderr, "infergap study: %s\n", note.c_str());
  });
  a.opt.models = std::move(found.models);
  a.parents = std::move(found.parents);
}

void print_parent_hint(const StudyArgs& a) {
  for (const auto& p : a.parents)
    for (const auto& m : a.opt.models)
      if (std::find(a.parents.begin(), a.parents.end(), m) == a.parents.end())
        std::printf(
            "against the parent, per layer: infergap compare --store %s --model %s "
            "--parent %s\n",
            a.store.c_str(), fs::path(m).stem().c_str(), fs::path(p).stem().c_str());
}

// What runs: models, inputs, platforms, repetitions and what each run captures.
void add_study_run_options(CLI::App* cmd, StudyArgs& a) {
  cmd->add_option("--model", a.opt.models,
                  "ONNX model file (repeatable); none: the default study (Cifar10-R18 and "
                  "Cifar10-small on three demo images)");
  cmd->add_option("--input", a.opt.input_files,
                  "NAME=SPEC, as `run --input` takes it (a file, image:PATH, random:..., "
                  "value:V); inputs not given get seeded random data");
  add_sizing_options(cmd, &a.opt.shapes, &a.opt.dims);
  cmd->add_option("--inputs", a.opt.input_sets, "Number of input sets (seeds S, S+1, ...)")
      ->capture_default_str();
  cmd->add_option("--seed", a.opt.seed, "First seed for random inputs")->capture_default_str();
  cmd->add_option("-p,--platform", a.opt.platforms, "Platform spec (repeatable)");
  cmd->add_option(
      "--preset", a.presets,
      "Platforms of a preset that this host can run (see `infergap platforms`); with no "
      "-p and no --preset: demo");
  cmd->add_option("--oracle", a.oracle,
                  "Oracle platform ('default': ref with fp64 where available, 'none')")
      ->capture_default_str();
  cmd->add_option("--repeat", a.opt.repeat, "Runs per platform, to expose nondeterminism")
      ->capture_default_str();
  cmd->add_option("--layers", a.layers, "Capture every node's output or only graph outputs")
      ->check(CLI::IsMember({"all", "outputs"}))
      ->capture_default_str();
  add_verify_traces_flag(cmd, &a.opt.verify_traces);
}

// Where the results go and what is done with them, and how the work is shared out.
void add_study_store_options(CLI::App* cmd, StudyArgs& a) {
  cmd->add_option("--store", a.store,
                  "Study store: a SQLite file, or postgresql://user@host/db (a fleet's)")
      ->capture_default_str();
  cmd->add_option("--keep-tensors", a.keep_tensors,
                  "origins: graph outputs, inputs, self-check re-runs, the inputs and outputs "
                  "of the nodes where divergences are born (what explain and attribute read) and "
                  "what compare and origins read beyond their facts; other layers keep their "
                  "hashes and are re-created by re-running their run on this host when read "
                  "(checked bit for bit); classes: every distinct tensor (one per class per "
                  "node), nothing re-run later; none: not even the origins")
      ->check(CLI::IsMember({"classes", "origins", "none"}))
      ->capture_default_str();
  cmd->add_option("--shard", a.shard,
                  "I/N: run only the cases (model x input set) whose index is I modulo N")
      ->capture_default_str();
  add_plan_options(cmd, &a.plan);
  cmd->add_option("--host-tag", a.opt.host_tag,
                  "Added to the host fingerprint, to tell apart identical machines");
  cmd->add_flag("--no-report", a.no_report,
                "Do not write the HTML report (default: report.html next to the store)");
  cmd->add_flag("--no-self-check", a.no_self_check,
                "Do not re-run grossly-off nodes alone (default: with an oracle and --layers all, "
                "each span off the oracle by over 1e-2 while its inputs agree to 1e-5 is re-run "
                "unfused on its platform and on the oracle)");
}

// What --plan checks before registering: every job would fail on a missing model.
Status models_exist(const std::vector<std::string>& models) {
  for (const auto& m : models) {
    std::error_code ec;
    if (!fs::is_regular_file(m, ec)) return not_found("{}: no such model file", m);
  }
  return Status::Ok();
}

Expected<StudyPlan> study_plan(const StudyArgs& a) {
  StudyOptions opt = a.opt;
  if (std::sscanf(a.shard.c_str(), "%d/%d", &opt.shard, &opt.shards) != 2)
    return invalid_argument("--shard '{}': expected I/N", a.shard);
  opt.timeout_seconds = a.limits.timeout;
  opt.max_memory_bytes = a.limits.max_memory_bytes();
  opt.trace_budget_bytes = a.trace_budget.bytes();
  opt.all_layers = a.layers == "all";
  opt.oracle = oracle_from_choice(a.oracle);
  const KeepTensors keep = a.keep_tensors == "none"      ? KeepTensors::kNone
                           : a.keep_tensors == "origins" ? KeepTensors::kOrigins
                                                         : KeepTensors::kClasses;
  return StudyPlan{opt, a.store, a.presets, !a.no_self_check, keep, !a.no_report};
}

// The study's steps with a progress bar on stderr; in text mode, its announcements on stderr too.
Expected<StudyOutcome> run_with_progress(Store& store, const StudyPlan& plan, bool json) {
  ProgressBar bar("study");
  StudyHooks hooks;
  hooks.progress = [&](const StudyProgress& p) {
    bar.update(p.done, p.total, p.executed, p.current);
  };
  hooks.note = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  hooks.error = [](const std::string& e) {
    std::fprintf(stderr, "infergap study: %s\n", e.c_str());
  };
  if (!json) hooks.announce = hooks.note;
  auto outcome = run_study_steps(store, plan, hooks);
  bar.finish();
  return outcome;
}

Status run_study(const StudyArgs& a, int& exit_code) {
  IG_ASSIGN_OR_RETURN(const StudyPlan plan, study_plan(a));
  return_freed_tensors_to_the_system();  // so the peak memory follows --trace-budget
  if (const fs::path dir = fs::path(a.store).parent_path();
      !dir.empty() && a.store.find("://") == std::string::npos) {
    std::error_code ec;  // a new store in a new folder: the folder is made, as the file is
    fs::create_directories(dir, ec);
    if (ec) return io_error("{}: cannot make the store's folder: {}", a.store, ec.message());
  }
  IG_ASSIGN_OR_RETURN(const std::unique_ptr<Store> store, Store::open(a.store));
  // A store an earlier study pruned gives its dropped tensors back to this one's analyses.
  RestoreOptions restore = restore_notes_on_stderr("study");
  restore.timeout_seconds = plan.options.timeout_seconds;
  restore.max_memory_bytes = plan.options.max_memory_bytes;
  restore_dropped_tensors(*store, std::move(restore));
  IG_ASSIGN_OR_RETURN(const StudyOutcome outcome, run_with_progress(*store, plan, a.json));
  // Built in both modes: it also tells stderr which open dims were left at their default.
  const nlohmann::json j = study_outcome_json(a.store, outcome);
  if (a.json)
    std::printf("%s\n", j.dump(2).c_str());
  else
    print_study_outcome(a.store, outcome);
  if (!a.json) print_parent_hint(a);
  for (const auto& [v, n] : outcome.summary.verdicts)
    if (v != "ok") exit_code = kExitFailures;
  return Status::Ok();
}

}  // namespace

void add_study_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<StudyArgs>();
  auto* cmd = app.add_subcommand(
      "study", "Run models x inputs x platforms x repetitions into a store (skips stored runs)");
  add_study_run_options(cmd, *args);
  add_study_store_options(cmd, *args);
  add_limit_options(cmd, &args->limits);
  add_trace_budget_option(cmd, &args->trace_budget);
  cmd->add_flag("--json", args->json, "Print the summary as JSON");
  cmd->add_option("--parent", args->parents,
                  "Float parent of the --model files (from infergap quantize/convert), studied "
                  "on the same inputs for `compare --parent` (default: the parent a model's "
                  "lineage names, if beside it with the recorded hash)");
  cmd->callback([args, &exit_code] {
    add_parents(*args);
    if (register_fleet_plan("study", args->store, args->plan, args->json, exit_code,
                            [&] { return models_exist(args->opt.models); }))
      return;
    if (Status st = run_study(*args, exit_code); !st.ok()) {
      std::fprintf(stderr, "infergap study: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
}

void add_merge_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::vector<std::string> sources;
    std::string output;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("merge", "Union study stores (from different machines)");
  cmd->add_option("stores", args->sources, "Stores to merge (SQLite files or postgresql:// URLs)")
      ->required();
  cmd->add_option("-o,--output", args->output,
                  "Merged store (created or extended): a SQLite file or a postgresql:// URL")
      ->required();
  cmd->add_flag("--json", args->json, "Print counts as JSON");
  cmd->callback([args, &exit_code] {
    auto fail = [&](const Status& st) {
      std::fprintf(stderr, "infergap merge: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    };
    auto counts = merge_stores(args->sources, args->output);
    if (!counts.ok()) return fail(counts.status());
    nlohmann::json j{{"output", redact_url(args->output)}};
    for (const auto& [table, n] : *counts) j[table] = n;
    if (args->json) {
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%s: %lld hosts, %lld runs, %lld distinct tensors\n",
                  redact_url(args->output).c_str(),
                  static_cast<long long>(j["hosts"].get<int64_t>()),
                  static_cast<long long>(j["runs"].get<int64_t>()),
                  static_cast<long long>(j["tensors"].get<int64_t>()));
    }
  });
}

}  // namespace ig::cli

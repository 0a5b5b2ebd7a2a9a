// infergap study --model M... -p SPEC... --store DB [--input NAME=SPEC...] [--shape NAME=DIMS...]
//   [--dim SYMBOL=SIZE...] [--inputs N]
//   [--seed S] [--oracle SPEC] [--repeat N] [--layers all|outputs] [--timeout S]
//   [--max-memory SIZE] [--keep-tensors classes|none] [--no-report] [--no-self-check] [--json]
//   (writes <store dir>/report.html at the end unless --no-report)
// infergap merge A.db B.db ... -o C.db [--json]
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/self_check_plan.h"
#include "cli/commands.h"
#include "cli/compare_json.h"
#include "cli/fleet_plan.h"
#include "cli/input_options.h"
#include "cli/limit_options.h"
#include "cli/progress.h"
#include "cli/study_setup.h"
#include "report/report.h"
#include "store/pg_store.h"
#include "study/self_check.h"
#include "study/study.h"
#include "worker/probe.h"

namespace ig::cli {

namespace fs = std::filesystem;

namespace {

// The self-check (study/self_check.h) of the study's runs on this host.
Expected<SelfCheckSummary> self_check_study(Store& store, WorkerPool& pool,
                                            const StudyOptions& options, const std::string& host) {
  IG_ASSIGN_OR_RETURN(auto study, load_study(store));
  TensorCache cache(study);
  IG_ASSIGN_OR_RETURN(auto requests, self_check_requests(study, cache, host));
  keep_tensor_facts(store, study, "study");
  if (requests.empty()) return SelfCheckSummary{};
  IG_ASSIGN_OR_RETURN(const Catalog catalog, read_catalog(pool.worker_executable()));
  return run_self_checks(store, pool, catalog, requests,
                         {options.timeout_seconds, options.max_memory_bytes});
}

// What `compare --layers` computes from tensors (errors against the oracle, remaining precision,
// deviating elements), learned now and kept as tensor facts: later analyses read numbers instead
// of decoding every layer of every run again.
Status learn_tensor_facts(Store& store) {
  IG_ASSIGN_OR_RETURN(auto study, load_study(store));
  // Case by case: a case blocked by tensors an earlier study dropped does not keep the others
  // from being learned, and only one case's tensors are held in memory at a time.
  std::vector<CaseData> cases = std::move(study.cases);
  size_t blocked = 0;
  std::string first_blocked;
  for (auto& c : cases) {
    study.cases.clear();
    study.cases.push_back(std::move(c));
    TensorCache cache(study);
    // Every node, data movement included: with --keep-tensors none nothing can be computed later.
    const Status computed =
        compare_json(study, /*layers=*/true, /*all_nodes=*/true, cache).status();
    if (computed.ok()) continue;
    // Runs added to a store that kept no inner tensors cannot be compared with the earlier ones
    // layer by layer; they are stored all the same, and compare --layers will say why.
    if (!tensor_not_kept(computed)) return computed;
    if (blocked++ == 0) first_blocked = computed.message();
  }
  IG_RETURN_IF_ERROR(study.facts->save(store));
  if (blocked > 0)
    std::fprintf(stderr,
                 "infergap study: note: per-layer numbers of %zu of %zu cases not all computed: "
                 "%s\n",
                 blocked, cases.size(), first_blocked.c_str());
  return Status::Ok();
}

// What the study does after its runs are stored: learn facts, self-check, drop tensors.
Status after_the_runs(Store& store, WorkerPool& pool, const StudyOptions& options,
                      const StudySummary& summary, bool self_check, bool keep_no_tensors,
                      nlohmann::json& j) {
  IG_RETURN_IF_ERROR(learn_tensor_facts(store));
  if (!summary.oracle.empty() && options.all_layers && self_check) {
    IG_ASSIGN_OR_RETURN(auto checks, self_check_study(store, pool, options, summary.host));
    j["self_checks"] = {{"requested", checks.requested},
                        {"executed", checks.executed},
                        {"skipped", checks.skipped}};
    // The verdicts compare the re-runs with the oracle: learned too, before tensors go.
    if (checks.executed > 0) IG_RETURN_IF_ERROR(learn_tensor_facts(store));
  }
  if (keep_no_tensors) {
    IG_ASSIGN_OR_RETURN(auto dropped, store.drop_inner_tensors());
    j["tensors_dropped"] = {{"tensors", dropped.tensors}, {"bytes", dropped.bytes}};
  }
  return Status::Ok();
}

}  // namespace

void add_study_command(CLI::App& app, int& exit_code) {
  struct Args {
    StudyOptions opt;
    std::string oracle = "default";
    std::string layers = "all";
    std::string store = "infergap-study.db";
    std::vector<std::string> presets;
    std::string shard = "0/1";
    PlanArgs plan;
    LimitArgs limits;
    bool json = false, no_report = false, no_self_check = false;
    std::string keep_tensors = "classes";
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "study", "Run models x inputs x platforms x repetitions into a store (skips stored runs)");
  cmd->add_option("--model", args->opt.models,
                  "ONNX model file (repeatable); none: the default study (Cifar10-R18 and "
                  "Cifar10-small on three demo images)");
  cmd->add_option("--input", args->opt.input_files,
                  "NAME=SPEC, as `run --input` takes it (a file, image:PATH, random:..., "
                  "value:V); inputs not given get seeded random data");
  add_sizing_options(cmd, &args->opt.shapes, &args->opt.dims);
  cmd->add_option("--inputs", args->opt.input_sets, "Number of input sets (seeds S, S+1, ...)")
      ->capture_default_str();
  cmd->add_option("--seed", args->opt.seed, "First seed for random inputs")->capture_default_str();
  cmd->add_option("-p,--platform", args->opt.platforms, "Platform spec (repeatable)");
  cmd->add_option(
      "--preset", args->presets,
      "Platforms of a preset that this host can run (see `infergap platforms`); with no "
      "-p and no --preset: demo");
  cmd->add_option("--oracle", args->oracle,
                  "Oracle platform ('default': ref with fp64 where available, 'none')")
      ->capture_default_str();
  cmd->add_option("--repeat", args->opt.repeat, "Runs per platform, to expose nondeterminism")
      ->capture_default_str();
  cmd->add_option("--layers", args->layers, "Capture every node's output or only graph outputs")
      ->check(CLI::IsMember({"all", "outputs"}))
      ->capture_default_str();
  cmd->add_option("--store", args->store,
                  "Study store: a SQLite file, or postgresql://user@host/db (a fleet's)")
      ->capture_default_str();
  cmd->add_option("--keep-tensors", args->keep_tensors,
                  "classes: every distinct tensor (one per class per node); none: only graph "
                  "outputs, inputs and self-check re-runs, inner layers as hashes and the numbers "
                  "compare needs (no export or explain of inner layers, no platforms added later)")
      ->check(CLI::IsMember({"classes", "none"}))
      ->capture_default_str();
  cmd->add_option("--shard", args->shard,
                  "I/N: run only the cases (model x input set) whose index is I modulo N")
      ->capture_default_str();
  add_plan_options(cmd, &args->plan);
  cmd->add_option("--host-tag", args->opt.host_tag,
                  "Added to the host fingerprint, to tell apart identical machines");
  cmd->add_flag("--no-report", args->no_report,
                "Do not write the HTML report (default: report.html next to the store)");
  cmd->add_flag("--no-self-check", args->no_self_check,
                "Do not re-run grossly-off nodes alone (default: with an oracle and --layers all, "
                "each span off the oracle by over 1e-2 while its inputs agree to 1e-5 is re-run "
                "unfused on its platform and on the oracle)");
  add_limit_options(cmd, &args->limits);
  cmd->add_flag("--json", args->json, "Print the summary as JSON");
  cmd->callback([args, &exit_code] {
    auto models_exist = [&]() -> Status {
      for (const auto& m : args->opt.models) {
        std::error_code ec;
        if (!fs::is_regular_file(m, ec)) return not_found("{}: no such model file", m);
      }
      return Status::Ok();
    };
    if (register_fleet_plan("study", args->store, args->plan, args->json, exit_code, models_exist))
      return;
    if (std::sscanf(args->shard.c_str(), "%d/%d", &args->opt.shard, &args->opt.shards) != 2) {
      std::fprintf(stderr, "infergap study: --shard '%s': expected I/N\n", args->shard.c_str());
      exit_code = kExitBadInput;
      return;
    }
    args->opt.timeout_seconds = args->limits.timeout;
    args->opt.max_memory_bytes = args->limits.max_memory_bytes();
    args->opt.all_layers = args->layers == "all";
    args->opt.oracle = args->oracle == "default" ? default_oracle()
                       : args->oracle == "none"  ? ""
                                                 : args->oracle;
    auto fail = [&](const Status& st) {
      std::fprintf(stderr, "infergap study: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    };
    auto store = Store::open(args->store);
    if (!store.ok()) return fail(store.status());
    WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = true});
    if (args->opt.models.empty()) {
      // Beside a SQLite store; in the current folder for a PostgreSQL one.
      const std::string work_dir = is_postgres_url(args->store)
                                       ? std::string("infergap-default-study")
                                       : fs::path(args->store).replace_extension("").string();
      if (Status st = apply_default_study(work_dir, args->opt); !st.ok()) return fail(st);
      if (!args->json) {
        std::fprintf(stderr,
                     "default study: %zu zoo models in %s/models, demo images in %s/images\n",
                     args->opt.models.size(), work_dir.c_str(), work_dir.c_str());
      }
    }
    if (args->opt.platforms.empty() && args->presets.empty()) args->presets.push_back("demo");
    if (!args->presets.empty()) {
      std::vector<std::string> skipped;
      auto specs = available_preset_platforms(pool, args->presets, skipped);
      if (!specs.ok()) return fail(specs.status());
      for (const auto& s : skipped)
        std::fprintf(stderr, "skipped (unavailable here): %s\n", s.c_str());
      args->opt.platforms.insert(args->opt.platforms.end(), specs->begin(), specs->end());
    }
    ProgressBar bar("study");
    auto summary = run_study(**store, pool, args->opt, [&](const StudyProgress& p) {
      bar.update(p.done, p.total, p.executed, p.current);
    });
    bar.finish();
    if (!summary.ok()) {
      // Runs stored before the failure are kept in the shared store too (a rerun skips them).
      if (Status st = (*store)->push_to_remote(); !st.ok())
        std::fprintf(stderr, "infergap study: %s\n", st.message().c_str());
      return fail(summary.status());
    }
    nlohmann::json j{{"store", redact_url(args->store)},
                     {"host", summary->host},
                     {"oracle", summary->oracle},
                     {"runs_total", summary->total},
                     {"runs_executed", summary->executed},
                     {"runs_skipped", summary->skipped},
                     {"verdicts", summary->verdicts},
                     {"defaulted_dims", announce_defaulted("study", summary->defaulted)}};
    // The runs are results even when a later step fails: pushed all the same, then reported.
    const Status after = after_the_runs(**store, pool, args->opt, *summary, !args->no_self_check,
                                        args->keep_tensors == "none", j);
    if (Status st = (*store)->push_to_remote(); !st.ok()) {
      if (!after.ok()) std::fprintf(stderr, "infergap study: %s\n", after.message().c_str());
      return fail(st);
    }
    if (!after.ok()) return fail(after);
    if (!args->no_report && (*store)->remote().empty())
      write_report_beside_store(**store, args->store, "study", j);
    if (args->json) {
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%s: %lld runs executed, %lld already stored (host %s)\n",
                  redact_url(args->store).c_str(), static_cast<long long>(summary->executed),
                  static_cast<long long>(summary->skipped), summary->host.c_str());
      if (j.contains("report")) std::printf("report: %s\n", j["report"].get<std::string>().c_str());
      if (j.contains("self_checks") && j["self_checks"]["requested"].get<int64_t>() > 0)
        std::printf("self-check: %lld re-run(s) of grossly-off spans, %lld already stored\n",
                    static_cast<long long>(j["self_checks"]["executed"].get<int64_t>()),
                    static_cast<long long>(j["self_checks"]["skipped"].get<int64_t>()));
      for (const auto& [v, n] : summary->verdicts)
        std::printf("  %-12s %lld\n", v.c_str(), static_cast<long long>(n));
    }
    for (const auto& [v, n] : summary->verdicts)
      if (v != "ok") exit_code = kExitFailures;
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
    auto out = Store::open(args->output);
    if (!out.ok()) return fail(out.status());
    for (const auto& src : args->sources) {
      // A PostgreSQL source is merged from its snapshot; a PostgreSQL output gets the union.
      std::unique_ptr<Store> snapshot;
      if (is_postgres_url(src)) {
        auto opened = Store::open(src);
        if (!opened.ok()) return fail(opened.status());
        snapshot = std::move(*opened);
      }
      Status st = (*out)->merge_from(snapshot ? snapshot->path() : src);
      if (!st.ok()) return fail(st);
    }
    if (Status st = (*out)->push_to_remote(); !st.ok()) return fail(st);
    nlohmann::json j{{"output", redact_url(args->output)}};
    for (const char* table : {"hosts", "platforms", "models", "inputs", "runs", "tensors"}) {
      auto n = (*out)->count(table);
      if (!n.ok()) return fail(n.status());
      j[table] = *n;
    }
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

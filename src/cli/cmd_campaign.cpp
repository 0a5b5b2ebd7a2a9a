// infergap campaign --models DIR|FILE... -p SPEC... [--preset P] --store DB [--shard I/N]
//   [--jobs J] [--oracle SPEC] [--seed S] [--shape NAME=DIMS]... [--dim SYMBOL=SIZE]...
//   [--layers outputs|all] [--rtol R] [--atol A] [--json]
// Runs every variant on every platform and the oracle (a study with one input set per variant:
// the inputs the variant carries, else seeded random data), locates the divergences it must
// explain by rerunning those runs with every layer, and prints the campaign analysis.
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "analysis/campaign.h"
#include "cli/campaign_print.h"
#include "cli/commands.h"
#include "cli/fleet_plan.h"
#include "cli/input_options.h"
#include "cli/progress.h"
#include "cli/study_setup.h"
#include "inputs/variant_inputs.h"
#include "report/report.h"
#include "store/pg_store.h"
#include "study/campaign.h"

namespace ig::cli {

namespace {

// Executed runs' costs in ms per run (StudySummary::Costs): a slow host explains itself.
nlohmann::json per_run_ms(const StudySummary& s) {
  const double n = s.executed > 0 ? static_cast<double>(s.executed) : 1.0;
  return {{"load_and_check", 1e3 * s.costs.load / n},
          {"run_and_hash", 1e3 * s.costs.run / n},
          {"transfer", 1e3 * s.costs.transfer / n},
          {"store", 1e3 * s.costs.store / n}};
}

}  // namespace

void add_campaign_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::vector<std::string> models, platforms, presets, shapes, dims;
    std::string store = "infergap-campaign.db", shard = "0/1", oracle = "default";
    std::string layers = "outputs";
    std::string host_tag;
    int jobs = 0;
    uint64_t seed = 0;
    CampaignAnalysisOptions analysis;
    PlanArgs plan;
    bool json = false, no_report = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "campaign", "Run many variants on many platforms: support, failures, discrepancies");
  cmd->add_option("--models", a->models, "Variant folders (every .onnx below) or files")
      ->required();
  cmd->add_option("-p,--platform", a->platforms, "Platform spec (repeatable)");
  cmd->add_option("--preset", a->presets, "Platforms of a preset that this host can run");
  cmd->add_option("--store", a->store,
                  "Campaign store (SQLite; resumes), or postgresql://user@host/db (a fleet's)")
      ->capture_default_str();
  add_plan_options(cmd, &a->plan);
  cmd->add_option("--shard", a->shard,
                  "I/N: run only variants whose content hash is I modulo N (job arrays)")
      ->capture_default_str();
  cmd->add_option("--jobs", a->jobs, "Runs in flight at once (default: one per core)");
  cmd->add_option("--oracle", a->oracle, "Oracle platform ('default': ref fp64, 'none')")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed for inputs a variant does not carry")
      ->capture_default_str();
  cmd->add_option("--host-tag", a->host_tag,
                  "Added to the host fingerprint, to tell apart identical machines");
  add_sizing_options(cmd, &a->shapes, &a->dims);
  cmd->add_option("--layers", a->layers,
                  "outputs: graph outputs, then every layer only for runs whose divergence "
                  "must be located; all: every layer of every run")
      ->check(CLI::IsMember({"all", "outputs"}))
      ->capture_default_str();
  cmd->add_option("--rtol", a->analysis.rtol, "Relative tolerance against the oracle")
      ->capture_default_str();
  cmd->add_option("--atol", a->analysis.atol, "Absolute tolerance against the oracle")
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "Print counts and the analysis as JSON");
  cmd->add_flag("--no-report", a->no_report,
                "Do not write the HTML report (default: report.html next to the store)");
  cmd->callback([a, &exit_code] {
    auto fail = [&](const Status& st) {
      std::fprintf(stderr, "infergap campaign: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    };
    auto variants_found = [&]() -> Status {
      IG_ASSIGN_OR_RETURN(auto all, campaign_models(a->models, 0, 1));
      if (all.empty()) return not_found("--models: no .onnx file found");
      return Status::Ok();
    };
    if (register_fleet_plan("campaign", a->store, a->plan, a->json, exit_code, variants_found))
      return;
    int shard = 0, shards = 1;
    if (std::sscanf(a->shard.c_str(), "%d/%d", &shard, &shards) != 2)
      return fail(invalid_argument("--shard '{}': expected I/N", a->shard));
    auto models = campaign_models(a->models, shard, shards);
    if (!models.ok()) return fail(models.status());
    auto store = Store::open(a->store);
    if (!store.ok()) return fail(store.status());
    WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = true});
    StudyOptions opt;
    opt.models = *models;
    opt.platforms = a->platforms;
    if (!a->presets.empty()) {
      std::vector<std::string> skipped;
      auto specs = available_preset_platforms(pool, a->presets, skipped);
      if (!specs.ok()) return fail(specs.status());
      for (const auto& s : skipped)
        std::fprintf(stderr, "skipped (unavailable here): %s\n", s.c_str());
      opt.platforms.insert(opt.platforms.end(), specs->begin(), specs->end());
    }
    opt.oracle = a->oracle == "default" ? default_oracle() : a->oracle == "none" ? "" : a->oracle;
    opt.seed = a->seed;
    opt.host_tag = a->host_tag;
    opt.shapes = a->shapes;
    opt.dims = a->dims;
    opt.all_layers = a->layers == "all";
    opt.jobs =
        a->jobs > 0 ? a->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    opt.model_inputs = variant_input_specs;
    CampaignOptions campaign{opt, nullptr};
    campaign.runs_needing_layers = [&](const Store& st, const std::string& oracle) {
      CampaignAnalysisOptions o = a->analysis;
      o.oracle = oracle;
      return runs_needing_layers(st, o);
    };
    std::unique_ptr<ProgressBar> bar = std::make_unique<ProgressBar>("campaign");
    bool in_layers = false;
    auto summary = run_campaign(**store, pool, campaign, [&](const CampaignProgress& p) {
      if (p.layers && !in_layers) {
        bar->finish();
        bar = std::make_unique<ProgressBar>("layers");
        in_layers = true;
      }
      bar->update(p.done, p.total, p.executed, p.current);
    });
    bar->finish();
    if (!summary.ok()) {
      // Runs stored before the failure are kept in the shared store too (a rerun skips them).
      if (Status st = (*store)->push_to_remote(); !st.ok())
        std::fprintf(stderr, "infergap campaign: %s\n", st.message().c_str());
      return fail(summary.status());
    }
    if (Status st = (*store)->push_to_remote(); !st.ok()) return fail(st);
    a->analysis.oracle = summary->runs.oracle;
    const TraceSummary& traced = summary->layers;
    using Clock = std::chrono::steady_clock;
    auto seconds_since = [](Clock::time_point t) {
      return std::chrono::duration<double>(Clock::now() - t).count();
    };
    const auto t_analysis = Clock::now();
    auto analysis = analyse_campaign(**store, a->analysis);
    const double analysis_seconds = seconds_since(t_analysis);
    if (!analysis.ok()) return fail(analysis.status());
    nlohmann::json j{
        {"store", redact_url(a->store)},
        {"shard", a->shard},
        {"variants", models->size()},
        {"host", summary->runs.host},
        {"oracle", summary->runs.oracle},
        {"runs_total", summary->runs.total},
        {"runs_executed", summary->runs.executed},
        {"runs_skipped", summary->runs.skipped},
        {"runs_layer_traced", traced.traced},
        {"runs_not_reproduced", traced.changed},
        {"verdicts", summary->runs.verdicts},
        {"defaulted_dims", announce_defaulted("campaign", summary->runs.defaulted)},
        // Where the time went: registering and running (runs/s stored), the
        // per-layer reruns, the analysis.
        {"seconds",
         {{"runs", summary->runs_seconds},
          {"runs_per_second",
           summary->runs_seconds > 0 ? summary->runs.executed / summary->runs_seconds : 0},
          {"layers", summary->layers_seconds},
          {"analysis", analysis_seconds},
          {"per_run_ms", per_run_ms(summary->runs)}}},
        {"analysis", *analysis}};
    if (!a->no_report && (*store)->remote().empty())
      write_report_beside_store(**store, a->store, "campaign", j);
    if (a->json) {
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf(
          "%s: %zu variants, %lld runs executed, %lld already stored, %lld rerun with "
          "every layer\n",
          redact_url(a->store).c_str(), models->size(),
          static_cast<long long>(summary->runs.executed),
          static_cast<long long>(summary->runs.skipped), static_cast<long long>(traced.traced));
      print_campaign_tables(*analysis);
    }
  });
}

}  // namespace ig::cli

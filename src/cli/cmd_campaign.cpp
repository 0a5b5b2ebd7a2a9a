// infergap campaign --models DIR|FILE... -p SPEC... [--preset P] --store DB [--shard I/N]
//   [--jobs J] [--oracle SPEC] [--seed S] [--shape NAME=DIMS]... [--dim SYMBOL=SIZE]...
//   [--layers outputs|all] [--rtol R] [--atol A] [--trace-budget SIZE] [--derive int8,fp16,bf16]
//   [--derive-dir DIR] [--json]
// Runs every variant on every platform and the oracle (a study with one input set per variant:
// the inputs the variant carries, else seeded random data), locates the divergences it must
// explain by rerunning those runs with every layer, and prints the campaign analysis.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "analysis/campaign/campaign.h"
#include "cli/campaign_print.h"
#include "cli/commands.h"
#include "cli/fleet_plan.h"
#include "cli/input_options.h"
#include "cli/limit_options.h"
#include "cli/peak_memory.h"
#include "inputs/variant_inputs.h"
#include "store/pg_store.h"
#include "views/progress.h"
#include "workflow/campaign.h"
#include "workflow/campaign_derive.h"

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

// Models the campaign left out, each with why; said on stderr as well (also under --json).
nlohmann::json refused_models_json(const StudySummary& s) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [path, why] : s.refused_models) {
    std::fprintf(stderr, "infergap campaign: left out %s: %s\n", path.c_str(), why.c_str());
    out.push_back({{"path", path}, {"why", why}});
  }
  return out;
}

// The campaign's outcome as `--json` prints it.
nlohmann::json campaign_outcome_json(const std::string& store, const std::string& shard,
                                     size_t variants, const CampaignOutcome& o) {
  nlohmann::json j{{"store", redact_url(store)},
                   {"shard", shard},
                   {"variants", variants},
                   {"host", o.runs.host},
                   {"oracle", o.runs.oracle},
                   {"runs_total", o.runs.total},
                   {"runs_executed", o.runs.executed},
                   {"runs_skipped", o.runs.skipped},
                   {"runs_layer_traced", o.layers.traced},
                   {"runs_not_reproduced", o.layers.changed},
                   {"verdicts", o.runs.verdicts},
                   {"defaulted_dims", announce_defaulted("campaign", o.runs.defaulted)},
                   {"refused_models", refused_models_json(o.runs)},
                   // Where the time went: registering and running (runs/s stored), the per-layer
                   // reruns, the analysis.
                   {"seconds",
                    {{"runs", o.runs_seconds},
                     {"runs_per_second", o.runs_seconds > 0 ? o.runs.executed / o.runs_seconds : 0},
                     {"layers", o.layers_seconds},
                     {"analysis", o.analysis_seconds},
                     {"per_run_ms", per_run_ms(o.runs)}}},
                   {"analysis", o.analysis}};
  if (!o.report.empty()) j["report"] = o.report;
  j["peak_rss"] = peak_rss_json(o.runs);
  j["trace_memory"] = trace_memory_json(o.runs);
  return j;
}

struct CampaignArgs {
  std::vector<std::string> models, platforms, presets, shapes, dims;
  std::string store = "infergap-campaign.db", shard = "0/1", oracle = "default";
  std::string layers = "outputs";
  std::string host_tag, derive_dir;
  std::vector<std::string> derive;
  int jobs = 0;
  uint64_t seed = 0;
  CampaignAnalysisOptions analysis;
  PlanArgs plan;
  TraceBudgetArg trace_budget;
  bool json = false, no_report = false, verify_traces = false;
};

void add_campaign_options(CLI::App* cmd, CampaignArgs& a) {
  cmd->add_option("--models", a.models, "Variant folders (every .onnx below) or files")->required();
  cmd->add_option("-p,--platform", a.platforms, "Platform spec (repeatable)");
  cmd->add_option("--preset", a.presets, "Platforms of a preset that this host can run");
  cmd->add_option("--store", a.store,
                  "Campaign store (SQLite; resumes), or postgresql://user@host/db (a fleet's)")
      ->capture_default_str();
  add_plan_options(cmd, &a.plan);
  cmd->add_option("--shard", a.shard,
                  "I/N: run only variants whose content hash is I modulo N (job arrays)")
      ->capture_default_str();
  cmd->add_option("--jobs", a.jobs, "Runs in flight at once (default: one per core)");
  cmd->add_option("--oracle", a.oracle, "Oracle platform ('default': ref fp64, 'none')")
      ->capture_default_str();
  cmd->add_option("--seed", a.seed, "Seed for inputs a variant does not carry")
      ->capture_default_str();
  cmd->add_option("--host-tag", a.host_tag,
                  "Added to the host fingerprint, to tell apart identical machines");
  add_sizing_options(cmd, &a.shapes, &a.dims);
  cmd->add_option("--layers", a.layers,
                  "outputs: graph outputs, then every layer only for runs whose divergence "
                  "must be located; all: every layer of every run")
      ->check(CLI::IsMember({"all", "outputs"}))
      ->capture_default_str();
  cmd->add_option("--rtol", a.analysis.rtol, "Relative tolerance against the oracle")
      ->capture_default_str();
  cmd->add_option("--atol", a.analysis.atol, "Absolute tolerance against the oracle")
      ->capture_default_str();
  add_trace_budget_option(cmd, &a.trace_budget);
  add_verify_traces_flag(cmd, &a.verify_traces);
  cmd->add_option("--derive", a.derive,
                  "int8, int8-inputs, fp16, bf16 (comma-separated or repeated): also run each "
                  "model's derived models (quantize calibrated on its campaign inputs, "
                  "int8-inputs with --layout inputs; convert with float32 I/O) and report how "
                  "they change its outputs per platform");
  cmd->add_option("--derive-dir", a.derive_dir,
                  "Where --derive writes the derived models (default: STORE-derived beside the "
                  "store)");
  cmd->add_flag("--json", a.json, "Print counts and the analysis as JSON");
  cmd->add_flag("--no-report", a.no_report,
                "Do not write the HTML report (default: report.html next to the store)");
}

// What --plan checks before registering: every job would fail without a variant.
Status variants_found(const std::vector<std::string>& models) {
  IG_ASSIGN_OR_RETURN(auto all, campaign_models(models, 0, 1));
  if (all.empty()) return not_found("--models: no .onnx file found");
  return Status::Ok();
}

StudyOptions study_options(const CampaignArgs& a, std::vector<std::string> models) {
  StudyOptions opt;
  opt.models = std::move(models);
  opt.platforms = a.platforms;
  opt.oracle = oracle_from_choice(a.oracle);
  opt.seed = a.seed;
  opt.host_tag = a.host_tag;
  opt.shapes = a.shapes;
  opt.dims = a.dims;
  opt.all_layers = a.layers == "all";
  opt.verify_traces = a.verify_traces;
  opt.jobs =
      a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  opt.model_inputs = variant_input_specs;
  opt.trace_budget_bytes = a.trace_budget.bytes();
  opt.leave_out_refused_models = true;  // one malformed variant does not end a campaign
  return opt;
}

// --derive: the derived models of the campaign's models, written before anything is stored.
Expected<DerivedModels> derive_for_campaign(const CampaignArgs& a,
                                            const std::vector<std::string>& models) {
  DeriveRequest r;
  IG_ASSIGN_OR_RETURN(r.kinds, parse_derive_kinds(a.derive));
  r.dir = a.derive_dir;
  if (r.dir.empty()) {
    if (is_postgres_url(a.store))
      return invalid_argument("--derive with a PostgreSQL store: name --derive-dir");
    r.dir = default_derive_dir(a.store);
  }
  r.seed = a.seed;
  r.shapes = a.shapes;
  r.dims = a.dims;
  return derive_campaign_models(
      models, r, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
}

nlohmann::json derive_json(const CampaignArgs& a, const DerivedModels& d) {
  return {{"dir", a.derive_dir.empty() ? default_derive_dir(a.store) : a.derive_dir},
          {"written", d.paths.size()},
          {"made", d.made},
          {"skipped", d.skipped},
          {"why", d.why}};
}

void print_derived(const CampaignArgs& a, const DerivedModels& d) {
  std::string made;
  for (const auto& [kind, n] : d.made)
    made += (made.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
  std::printf("derived models in %s: %s", derive_json(a, d)["dir"].get<std::string>().c_str(),
              made.empty() ? "none" : made.c_str());
  int64_t skipped = 0;
  for (const auto& [kind, n] : d.skipped) skipped += n;
  if (skipped) std::printf("; %lld not derived (reasons above)", static_cast<long long>(skipped));
  std::printf("\n");
}

// The campaign's steps with a progress bar on stderr: one for the runs, one for the layer reruns.
Expected<CampaignOutcome> run_with_progress(Store& store, const CampaignPlan& plan) {
  std::unique_ptr<ProgressBar> bar = std::make_unique<ProgressBar>("campaign");
  bool in_layers = false;
  CampaignHooks hooks;
  hooks.progress = [&](const CampaignProgress& p) {
    if (p.layers && !in_layers) {
      bar->finish();
      bar = std::make_unique<ProgressBar>("layers");
      in_layers = true;
    }
    bar->update(p.done, p.total, p.executed, p.current);
  };
  hooks.note = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  hooks.error = [](const std::string& e) {
    std::fprintf(stderr, "infergap campaign: %s\n", e.c_str());
  };
  auto outcome = run_campaign_steps(store, plan, hooks);
  bar->finish();
  return outcome;
}

Status run_campaign(const CampaignArgs& a) {
  return_freed_tensors_to_the_system();  // so the peak memory follows --trace-budget
  int shard = 0, shards = 1;
  if (std::sscanf(a.shard.c_str(), "%d/%d", &shard, &shards) != 2)
    return invalid_argument("--shard '{}': expected I/N", a.shard);
  IG_ASSIGN_OR_RETURN(std::vector<std::string> models, campaign_models(a.models, shard, shards));
  std::optional<DerivedModels> derived;
  if (!a.derive.empty()) {
    IG_ASSIGN_OR_RETURN(derived, derive_for_campaign(a, models));
    models = with_derived_models(std::move(models), *derived);
  }
  IG_ASSIGN_OR_RETURN(const std::unique_ptr<Store> store, Store::open(a.store));
  const CampaignPlan plan{study_options(a, models), a.store, a.presets, a.analysis, !a.no_report};
  IG_ASSIGN_OR_RETURN(const CampaignOutcome outcome, run_with_progress(*store, plan));
  nlohmann::json j = campaign_outcome_json(a.store, a.shard, models.size(), outcome);
  if (derived) j["derive"] = derive_json(a, *derived);
  if (a.json) {
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf(
        "%s: %zu variants, %lld runs executed, %lld already stored, %lld rerun with "
        "every layer\n",
        redact_url(a.store).c_str(), models.size(), static_cast<long long>(outcome.runs.executed),
        static_cast<long long>(outcome.runs.skipped),
        static_cast<long long>(outcome.layers.traced));
    std::printf("%s\n", peak_memory_text(outcome.runs).c_str());
    if (const auto refused = refused_models_json(outcome.runs); !refused.empty())
      std::printf("%zu model(s) refused and left out (reasons above)\n", refused.size());
    if (derived) print_derived(a, *derived);
    print_campaign_tables(outcome.analysis);
  }
  return Status::Ok();
}

}  // namespace

void add_campaign_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<CampaignArgs>();
  auto* cmd = app.add_subcommand(
      "campaign", "Run many variants on many platforms: support, failures, discrepancies");
  add_campaign_options(cmd, *a);
  cmd->callback([a, &exit_code] {
    if (register_fleet_plan("campaign", a->store, a->plan, a->json, exit_code, [&] {
          if (!a->derive.empty())
            return invalid_argument(
                "--derive does not combine with --plan: run `campaign "
                "--derive` once here, then plan with --models DERIVE_DIR");
          return variants_found(a->models);
        }))
      return;
    if (Status st = run_campaign(*a); !st.ok()) {
      std::fprintf(stderr, "infergap campaign: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
}

}  // namespace ig::cli

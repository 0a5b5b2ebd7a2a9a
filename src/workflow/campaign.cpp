#include "workflow/campaign.h"

#include <chrono>

#include "report/report.h"
#include "worker/probe.h"
#include "workflow/study_setup.h"

namespace ig {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The runs, then the per-layer reruns of those whose divergence must be located.
Status run_and_trace(Store& store, WorkerPool& pool, const CampaignPlan& plan,
                     const CampaignHooks& hooks, CampaignOutcome& out) {
  const auto t_runs = Clock::now();
  auto runs = run_study(store, pool, plan.study, [&](const StudyProgress& p) {
    if (hooks.progress) hooks.progress({false, p.done, p.total, p.executed, p.current});
  });
  if (!runs.ok()) return runs.status();
  out.runs = std::move(*runs);
  out.runs_seconds = seconds_since(t_runs);
  const auto t_layers = Clock::now();
  if (!plan.study.all_layers) {
    CampaignAnalysisOptions o = plan.analysis;
    o.oracle = out.runs.oracle;
    IG_ASSIGN_OR_RETURN(auto need, runs_needing_layers(store, o));
    const auto total = static_cast<int64_t>(need.size());
    auto progress = [&](int64_t done) {
      if (hooks.progress) hooks.progress({true, done, total, done, "per-layer rerun"});
    };
    IG_ASSIGN_OR_RETURN(out.layers,
                        trace_layers(store, pool, need, progress, plan.study.trace_budget_bytes));
  }
  out.runs.worker_peak_rss = pool.peak_rss();  // the per-layer reruns' workers too
  out.layers_seconds = seconds_since(t_layers);
  return Status::Ok();
}

}  // namespace

Expected<CampaignOutcome> run_campaign_steps(Store& store, CampaignPlan plan,
                                             const CampaignHooks& hooks) {
  WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = true});
  IG_ASSIGN_OR_RETURN(const Catalog catalog, read_catalog(pool.worker_executable()));
  plan.analysis.knobs = catalog.knobs;
  IG_RETURN_IF_ERROR(
      add_preset_platforms(pool, catalog, plan.presets, hooks.note, plan.study.platforms));
  CampaignOutcome out;
  const Status ran = run_and_trace(store, pool, plan, hooks, out);
  // Runs stored before a failure are kept in the shared store too (a rerun skips them).
  const Status pushed = store.push_to_remote();
  if (!ran.ok()) {
    if (!pushed.ok() && hooks.error) hooks.error(pushed.message());
    return ran;
  }
  IG_RETURN_IF_ERROR(pushed);
  plan.analysis.oracle = out.runs.oracle;
  const auto t_analysis = Clock::now();
  IG_ASSIGN_OR_RETURN(out.analysis, analyse_campaign(store, plan.analysis));
  out.analysis_seconds = seconds_since(t_analysis);
  if (plan.report && store.remote().empty())
    out.report = write_report_beside_store(store, plan.store_path, "campaign", catalog.knobs);
  return out;
}

}  // namespace ig

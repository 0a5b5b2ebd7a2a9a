#include "workflow/study.h"

#include <algorithm>

#include "core/strings.h"
#include "model/parent_record.h"

#include "analysis/compare/origins.h"
#include "analysis/learn_facts.h"
#include "analysis/self_check/plan.h"
#include "report/report.h"
#include "store/pg_store.h"
#include "views/study_reports.h"
#include "worker/probe.h"
#include "workflow/study_setup.h"

namespace ig {

namespace fs = std::filesystem;

Status learn_store_facts(Store& store, const char* command, uint64_t budget_bytes) {
  IG_ASSIGN_OR_RETURN(auto study, load_study(store));
  // Case by case: a case blocked by tensors an earlier study dropped does not keep the others
  // from being learned, and only one case's tensors are held in memory at a time.
  std::vector<CaseData> cases = std::move(study.cases);
  size_t blocked = 0;
  std::string first_blocked;
  for (auto& c : cases) {
    study.cases.clear();
    study.cases.push_back(std::move(c));
    TensorCache cache(study, in_flight_share(budget_bytes));
    Status learned = learn_tensor_facts(study, cache);
    if (learned.ok()) continue;
    // Runs added to a store that kept no inner tensors cannot be compared with the earlier ones
    // layer by layer; they are stored all the same, and compare --layers will say why.
    if (!tensor_not_kept(learned)) return learned;
    if (blocked++ == 0) first_blocked = learned.message();
  }
  IG_RETURN_IF_ERROR(study.facts->save(store));
  if (blocked > 0)
    std::fprintf(stderr,
                 "infergap %s: note: per-layer numbers of %zu of %zu cases not all computed: %s\n",
                 command, blocked, cases.size(), first_blocked.c_str());
  return Status::Ok();
}

namespace {

// What --keep-tensors origins keeps besides graph outputs, inputs and self-checks: per case, the
// inputs and outputs of every node where a divergence is born (where two platforms part with equal
// inputs, every pair's origins, and where a class splits: what explain, attribute and reduce start
// from), and every tensor that compare (with --layers), origins and origins --oracle read beyond
// the learned facts (a quantized pair's steps, integer tensors): those analyses are run here with
// a loader that records what they read, so a pruned store gives them what the whole one gives.
struct OriginTensors {
  std::vector<CaseValues> values;
  std::vector<TensorKey> read;
};

Expected<OriginTensors> origin_tensors(const Store& store, const Catalog& catalog,
                                       uint64_t budget_bytes) {
  IG_ASSIGN_OR_RETURN(auto study, load_study(store));
  OriginTensors out;
  const TensorLoader load = study.load;
  study.load = [&out, load](const TensorKey& key) -> Expected<Tensor> {
    out.read.push_back(key);
    return load(key);
  };
  TensorCache cache(study, in_flight_share(budget_bytes));
  IG_ASSIGN_OR_RETURN(const auto origins, study_origins(study, "", "", cache));
  for (const auto& co : origins) {
    CaseValues v{co.c->model, co.c->input, {}};
    auto add = [&](const Origin& o) {
      v.values.insert(o.inputs.begin(), o.inputs.end());
      v.values.insert(o.outputs.begin(), o.outputs.end());
    };
    for (const auto& pair : co.pairs)
      for (const auto& o : pair.induced) add(o);
    for (const auto& split : co.splits) add(split.node);
    if (!v.values.empty()) out.values.push_back(std::move(v));
  }
  for (const bool layers : {false, true}) {
    IG_RETURN_IF_ERROR(
        compare_report(study, CompareReportOptions{layers, layers, catalog.knobs}, cache).status());
  }
  if (!study.oracles.empty()) IG_RETURN_IF_ERROR(oracle_origins_report(study, cache).status());
  return out;
}

// The self-check (study/self_check.h) of the study's runs on this host.
Expected<SelfCheckSummary> self_check_study(Store& store, WorkerPool& pool, const Catalog& catalog,
                                            const StudyOptions& options, const std::string& host) {
  IG_ASSIGN_OR_RETURN(auto study, load_study(store));
  TensorCache cache(study, in_flight_share(options.trace_budget_bytes));
  IG_ASSIGN_OR_RETURN(auto requests, self_check_requests(study, cache, host));
  keep_tensor_facts(store, study, "study");
  if (requests.empty()) return SelfCheckSummary{};
  return run_self_checks(store, pool, catalog, requests,
                         {options.timeout_seconds, options.max_memory_bytes});
}

// What the study does after its runs are stored: learn facts, self-check, drop tensors.
Status after_the_runs(Store& store, WorkerPool& pool, const Catalog& catalog, const StudyPlan& plan,
                      StudyOutcome& out) {
  const uint64_t budget = plan.options.trace_budget_bytes;
  IG_RETURN_IF_ERROR(learn_store_facts(store, "study", budget));
  if (!out.summary.oracle.empty() && plan.options.all_layers && plan.self_check) {
    IG_ASSIGN_OR_RETURN(out.self_checks,
                        self_check_study(store, pool, catalog, plan.options, out.summary.host));
    // The verdicts compare the re-runs with the oracle: learned too, before tensors go.
    if (out.self_checks->executed > 0)
      IG_RETURN_IF_ERROR(learn_store_facts(store, "study", budget));
  }
  if (plan.keep_tensors == KeepTensors::kNone) {
    IG_ASSIGN_OR_RETURN(out.dropped, store.drop_inner_tensors());
  } else if (plan.keep_tensors == KeepTensors::kOrigins && plan.options.all_layers) {
    IG_ASSIGN_OR_RETURN(const auto keep, origin_tensors(store, catalog, budget));
    IG_ASSIGN_OR_RETURN(out.dropped, store.drop_inner_tensors(keep.values, keep.read));
  }
  return Status::Ok();
}

// The default study's models (beside a SQLite store; in the current folder for a PostgreSQL one)
// and the platforms of the presets.
Status complete_plan(StudyPlan& plan, WorkerPool& pool, const Catalog& catalog,
                     const StudyHooks& hooks) {
  if (plan.options.models.empty()) {
    const std::string work_dir = is_postgres_url(plan.store_path)
                                     ? std::string("infergap-default-study")
                                     : fs::path(plan.store_path).replace_extension("").string();
    IG_RETURN_IF_ERROR(apply_default_study(work_dir, plan.options));
    if (hooks.announce)
      hooks.announce(
          fmt::format("default study: {} zoo models in {}/models, demo images in {}/images",
                      plan.options.models.size(), work_dir, work_dir));
  }
  if (plan.options.platforms.empty() && plan.presets.empty()) plan.presets.push_back("demo");
  return add_preset_platforms(pool, catalog, plan.presets, hooks.note, plan.options.platforms);
}

}  // namespace

Expected<StudyOutcome> run_study_steps(Store& store, StudyPlan plan, const StudyHooks& hooks) {
  WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = true});
  IG_ASSIGN_OR_RETURN(const Catalog catalog, read_catalog(pool.worker_executable()));
  IG_RETURN_IF_ERROR(complete_plan(plan, pool, catalog, hooks));
  StudyOutcome out;
  auto summary = run_study(store, pool, plan.options, hooks.progress);
  if (!summary.ok()) {
    // Runs stored before the failure are kept in the shared store too (a rerun skips them).
    if (Status st = store.push_to_remote(); !st.ok() && hooks.error) hooks.error(st.message());
    return summary.status();
  }
  out.summary = std::move(*summary);
  // The runs are results even when a later step fails: pushed all the same, then reported.
  const Status after = after_the_runs(store, pool, catalog, plan, out);
  out.summary.worker_peak_rss = pool.peak_rss();  // the self-check's workers too
  if (Status st = store.push_to_remote(); !st.ok()) {
    if (!after.ok() && hooks.error) hooks.error(after.message());
    return st;
  }
  IG_RETURN_IF_ERROR(after);
  if (plan.report && store.remote().empty())
    out.report = write_report_beside_store(store, plan.store_path, "study", catalog.knobs);
  return out;
}

ModelsWithParents with_recorded_parents(std::vector<std::string> models,
                                        std::vector<std::string> parents,
                                        const std::function<void(const std::string&)>& note) {
  if (parents.empty()) {
    for (const auto& m : models) {
      const ParentLookup found = find_recorded_parent(m);
      if (!found.note().empty()) note(found.note());
      if (!found.path.empty() &&
          std::find(parents.begin(), parents.end(), found.path) == parents.end())
        parents.push_back(found.path);
    }
  }
  for (const auto& p : parents)
    if (std::none_of(models.begin(), models.end(),
                     [&](const std::string& m) { return same_path(m, p); }))
      models.push_back(p);
  return {std::move(models), std::move(parents)};
}

}  // namespace ig

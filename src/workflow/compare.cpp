#include "workflow/compare.h"

#include "analysis/learn_facts.h"
#include "worker/probe.h"
#include "worker/worker_pool.h"

namespace ig {

Expected<CompareOutcome> compare_study(Store& store, const CompareRequest& request) {
  CompareOutcome out;
  IG_ASSIGN_OR_RETURN(out.study, load_study(store, request.model));
  CompareReportOptions options{request.layers, request.all_nodes, {}};
  if (request.layers) {
    IG_ASSIGN_OR_RETURN(const Catalog catalog, read_catalog(default_worker_executable()));
    options.knobs = catalog.knobs;
  }
  TensorCache cache(out.study);
  IG_ASSIGN_OR_RETURN(out.report, compare_report(out.study, options, cache));
  out.not_kept = cache.not_kept();
  keep_tensor_facts(store, out.study, "compare");
  return out;
}

Expected<OracleOriginsOutcome> oracle_origins_study(Store& store, const std::string& model,
                                                    const std::string& store_path) {
  OracleOriginsOutcome out;
  IG_ASSIGN_OR_RETURN(out.study, load_study(store, model));
  if (out.study.oracles.empty())
    return invalid_argument("{}: the study has no oracle runs (study --oracle)", store_path);
  TensorCache cache(out.study);
  IG_ASSIGN_OR_RETURN(out.report, oracle_origins_report(out.study, cache));
  return out;
}

}  // namespace ig

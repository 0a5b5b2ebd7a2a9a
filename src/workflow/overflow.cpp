#include <set>

#include "model/onnx_model.h"
#include "workflow/parent_pair.h"
#include "workflow/precision.h"

namespace ig {

Expected<OverflowReport> run_overflow(const OverflowPlan& plan) {
  WorkerPool pool(WorkerPoolOptions{});
  IG_RETURN_IF_ERROR(pool.start(plan.platform));
  if (plan.parent.empty()) {
    IG_ASSIGN_OR_RETURN(const Model model, load_model(plan.derived));
    IG_ASSIGN_OR_RETURN(const auto proto, read_model_proto(plan.derived));
    IG_ASSIGN_OR_RETURN(const GatheredInputs gathered, gather_inputs(model, plan.inputs));
    std::map<std::string, Tensor> feeds;
    for (const auto& in : gathered.inputs) feeds[in.name] = in.tensor;
    IG_ASSIGN_OR_RETURN(auto values, run_values(pool, plan.platform, plan.derived, feeds, true,
                                                plan.timeout_seconds));
    return find_overflows(proto.graph(), values, {});
  }
  IG_ASSIGN_OR_RETURN(ParentPair pair, load_parent_pair(plan.derived, plan.parent, plan.inputs));
  IG_ASSIGN_OR_RETURN(auto parent, run_values(pool, plan.platform, plan.parent, pair.parent_feeds,
                                              true, plan.timeout_seconds));
  IG_ASSIGN_OR_RETURN(auto derived, run_values(pool, plan.platform, plan.derived,
                                               pair.derived_feeds, true, plan.timeout_seconds));
  return find_overflows(pair.derived.graph(), derived, parent);
}

}  // namespace ig

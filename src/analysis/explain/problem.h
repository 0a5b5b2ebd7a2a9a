// The node `explain` re-runs, set up from a stored run: the model file, the node (by name or by a
// value it produces), the platform's output there and every input the node reads, as that run
// traced it (graph inputs from the input set, initializers from the model).
#pragma once

#include <string>

#include "analysis/explain/explain.h"
#include "analysis/study_data.h"
#include "store/store.h"

namespace ig {

// `model` receives the loaded model (the problem points into it); `value` the output explained.
Expected<ExplainProblem> explain_problem(const Store& store, const CaseData& c, const RepRun& run,
                                         const std::string& platform, const std::string& node_name,
                                         Model& model, std::string& value);

}  // namespace ig

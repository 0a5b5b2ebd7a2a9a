// What `infergap explain` does: find the stored run (--run, else the platform's majority run in
// the first case that traced the node), cut the node (or the fused group the platform ran as one
// call) out with its stored inputs, and search the emulator's configurations for the one that
// reproduces the platform's output (analysis/explain/explain.h).
#pragma once

#include <memory>
#include <string>

#include "analysis/explain/explain.h"
#include "store/store.h"

namespace ig {

struct ExplainRequest {
  std::string platform, node;
  int64_t run = 0;  // 0: the platform's run in the first case that traced the node
  size_t max_trials = 400;
  ExplainProgress progress;
};

struct ExplainOutcome {
  std::string platform, case_label;
  int64_t run_id = 0;
  std::unique_ptr<Model> model;  // what the problem's node points into
  ExplainProblem problem;
  std::string value;  // the value compared
  ExplainResult result;
};

// `store_name` names the store in errors (the path the user gave).
Expected<ExplainOutcome> explain_stored_node(const Store& store, const std::string& store_name,
                                             const ExplainRequest& request);

}  // namespace ig

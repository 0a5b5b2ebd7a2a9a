// What `infergap invariance` does: whether a sample's output bits depend on the batch it is
// computed in. Every sample runs alone and inside batches of each size asked for (the inputs'
// first axis, the one the model leaves open); where some sample's bits change with the batch, a
// traced run of both batches finds the first node whose rows for that sample differ.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "inputs/inputs.h"
#include "results/run_result.h"

namespace ig {

struct InvarianceRequest {
  std::string model;
  InputRequest inputs;
  std::vector<int64_t> batches = {1, 8};  // batch sizes; each divides the largest
  std::vector<std::string> platforms;     // "ref" when empty
  double timeout_seconds = 300;
  uint64_t max_memory_bytes = 0;
};

// Where a platform's sample first changed with the batch.
struct BatchDifference {
  int64_t batch = 0;  // the batch size whose rows differ from the smallest size's
  int64_t samples_differing = 0;
  int64_t first_sample = -1;  // index among the samples
  std::string output;         // the first graph output that differs for first_sample
  int64_t elements = 0, elements_differing = 0;
  uint64_t max_ulp = 0;
  int remaining_precision = -1;  // mantissa bits that agree (floating outputs), -1 otherwise
  // The first traced node (in execution order) whose rows for first_sample differ: "" when the
  // traced runs could not say (see `located`).
  std::string node, op_type, covers;
  std::string located;  // how the node was found or why it was not
};

struct PlatformInvariance {
  std::string spec;
  Verdict verdict = Verdict::kOk;  // not ok: a run failed; `reason` says which
  std::string reason;
  std::string library, library_version;
  int runs = 0;
  double seconds = 0;
  bool invariant = false;                    // meaningful when verdict is ok
  std::vector<BatchDifference> differences;  // one per batch size that differs
};

struct InvarianceOutcome {
  std::vector<NamedInput> inputs;  // the whole set of samples
  std::string batch_symbol;        // the open first dim the inputs share
  std::vector<std::string> batched_inputs;
  std::vector<std::string> compared_outputs, skipped_outputs;  // outputs without the batch axis
  int64_t samples = 0;
  std::vector<int64_t> batches;  // ascending
  std::vector<PlatformInvariance> platforms;
  bool all_ok() const;
};

struct InvarianceHooks {
  std::function<void(const InvarianceOutcome&)> inputs_ready;
  std::function<void(const PlatformInvariance&)> platform_done;
};

Expected<InvarianceOutcome> check_batch_invariance(const InvarianceRequest& request,
                                                   const InvarianceHooks& hooks);

}  // namespace ig

// generate's inner parts: how a model's inputs advance from step to step, and the steps stored as
// the cases of a study to find where two platforms' tokens part.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/compare/origins.h"
#include "tensor/tensor.h"
#include "worker/worker_pool.h"
#include "workflow/generate.h"

namespace ig {

using StepFeeds = std::map<std::string, Tensor>;

struct KvCache {
  std::string past, present;
  int axis = 0;  // the sequence axis
  DType dtype = DType::kFloat32;
  Shape empty;  // the first step's past: batch 1, sequence 0
};

struct DecodeLayout {
  std::string ids, positions, mask;  // "" where the model has none
  DType ids_dtype = DType::kInt64, positions_dtype = DType::kInt64, mask_dtype = DType::kInt64;
  std::vector<KvCache> cache;  // empty: every step re-reads the whole sequence
  std::string logits;
};

struct TokenPick {
  int64_t token = -1;
  double margin = 0;  // top-1 minus top-2 logit
  bool finite = true;
};
// Greedy choice over the last position's logits: the lowest index among equal maxima.
TokenPick pick_token(const Tensor& logits);

// Writes each step's feeds beside the store, studies them (every platform, traced, and the
// oracle), and fills each divergence's node from its first step's case (generate_flip.cpp: the
// pool reruns platform a with some of b's values fed in).
Status store_and_locate(const GenerateRequest& request, const std::vector<StepFeeds>& steps,
                        WorkerPool& pool, GenerateOutcome& out, const GenerateHooks& hooks);

// Where, in a step's case, the difference between platforms a and b that flips a's token is
// born: a is rerun with the outputs of the first k nodes of a list fed from b, k bisected between
// none (a's own token) and all. First the born differences (`induced`, graph order): a node
// there is where a difference is born that a's own arithmetic carries into the flip. When all of
// them do not flip it, b's kernels carry the differences on into the flip: then every node whose
// outputs differ, and the answer is the node by which b's values flip it.
struct FlipSearch {
  bool found = false;
  std::string node, op_type;  // where the difference that flips the token is born
  bool carried = false;       // searched among the differing nodes, not the born differences
  size_t prefix = 0;          // of the list, how many it took (this node the last)
  size_t of = 0;              // the list's length
  bool alone = false;         // this node's values alone flip the token as well
  int64_t token = -1;         // the token a picks with the `prefix` differences fed in
  int runs = 0;               // reruns of platform a
  std::string why;            // found: what was done; else why not
};
struct FlipCase {
  const CaseData* c = nullptr;
  std::string label_a, label_b;  // the platforms' labels in the case
  std::string spec_a;
  const StepFeeds* feeds = nullptr;
  std::string logits;
};
FlipSearch find_flip(WorkerPool& pool, const GenerateRequest& request, const FlipCase& fc,
                     const std::vector<Origin>& induced, TensorCache& cache);

}  // namespace ig

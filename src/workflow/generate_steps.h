// generate's inner parts: how a model's inputs advance from step to step, and the steps stored as
// the cases of a study to find where two platforms' tokens part.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tensor/tensor.h"
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

// Writes each step's feeds beside the store, studies them (every platform, traced, and the
// oracle), and fills each divergence's node from its first step's case.
Status store_and_locate(const GenerateRequest& request, const std::vector<StepFeeds>& steps,
                        GenerateOutcome& out, const GenerateHooks& hooks);

}  // namespace ig

// `infergap explain`: which emulator configuration reproduces a platform's output of one node.
// The node is re-run alone on the reference interpreter, fed the inputs the platform itself
// traced, across the knobs that can matter for its operator (explain_space.h); the first
// configuration whose output equals the platform's bit for bit wins, else the closest by
// remaining precision. Its knobs name the cause in the papers' words.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/explain/space.h"
#include "backends/value.h"
#include "model/graph.h"

namespace ig {

struct ExplainTrial {
  std::string emulator;          // ref spec
  int remaining_precision = -1;  // against the platform's output; -1 when it failed
  int64_t differing = 0;         // elements whose bits differ
  bool exact = false;
  uint64_t hash = 0;  // of the emulator's output: equal hashes, equal bits
  std::string error;  // the emulator refused this configuration (e.g. winograd on a 1x1 conv)
};

struct ExplainResult {
  bool exact = false;
  std::string emulator;          // the matching or closest configuration
  Knobs knobs;                   // its knobs
  int remaining_precision = -1;  // of its output against the platform's
  int64_t differing = 0;
  int mantissa_bits = 0;            // of the output's type: remaining_precision when exact
  std::vector<std::string> causes;  // what its knobs name; empty: the reference's own order
  std::vector<ExplainTrial> tried;  // in the order tried
};

struct ExplainProblem {
  const Model* model = nullptr;
  const Node* node = nullptr;
  std::unordered_map<std::string, Value> inputs;  // every value the node reads
  size_t output_index = 0;                        // which of the node's outputs `target` is
  // The model is a fused group cut out of the original: run it whole (target = its output 0);
  // `node` is its head, whose operator decides which knobs can matter.
  bool whole_model = false;
  std::string group;  // the fused group's nodes, comma-separated ("" for one node)
  Tensor target;      // the platform's output
};

using ExplainProgress = std::function<void(size_t tried, const ExplainTrial& last)>;

// Searches until an exact match or `max_trials` configurations; the best one found.
Expected<ExplainResult> explain_node(const ExplainProblem& p, size_t max_trials,
                                     const ExplainProgress& progress = nullptr);

}  // namespace ig

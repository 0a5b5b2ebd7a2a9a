// Divergence origins (DESIGN.md): for two platforms, the nodes whose output differs while every
// input is bitwise equal on both (operator-induced); nodes whose inputs already differ only
// propagate. For the whole set, the nodes where an EQC splits.
//
// Quantized outputs (quant_steps.h) get their steps between the pair, and a node whose inputs
// differ is an origin all the same when it makes steps of its own: every input within half a step
// (quantized inputs in their steps, float ones in the output's) and its output at least 2 steps
// off somewhere or a step off in more than 1e-3 of its elements (oracle_origins.h's rule): a
// rounding that a tiny input difference flips at a boundary makes one step in a rare element.
#pragma once

#include <string>
#include <vector>

#include "analysis/compare/eqc.h"
#include "analysis/precision/quant_steps.h"
#include "analysis/study_data.h"

namespace ig {

struct Origin {
  int64_t node_index = 0;
  std::string node, op_type;
  nlohmann::json attributes;
  std::vector<std::string> inputs;   // produced inputs, bitwise equal on both platforms
  std::vector<std::string> outputs;  // the node's captured outputs (some differ)
  int remaining_precision = -1;      // of the outputs between the pair
  std::optional<StepsOff> steps;     // quantized outputs: their worst steps between the pair
  bool by_steps = false;  // inputs differ, but within half a step: born by the steps rule
  // Upstream nodes whose outputs one of the pair did not capture (a fused group, or a compiler's
  // whole graph), in topological order: the divergence is born in them or in this node.
  std::vector<std::string> covers;
};

struct PairOrigins {
  std::string a, b;
  std::string case_label;
  bool compared = false;        // both ran ok
  std::vector<Origin> induced;  // in topological order; the first is *the* divergence origin
  int64_t propagated = 0;       // differing nodes with a differing input
  // Differing nodes with an input not captured on both: none since origins reach back through
  // uncaptured nodes (Origin::covers); kept in the JSON for its readers.
  int64_t unknown = 0;
  int64_t differing = 0;
};

Expected<PairOrigins> pair_origins(const CaseData& c, const std::string& a, const std::string& b,
                                   TensorCache& cache);

struct SetOrigin {
  std::string case_label;
  Origin node;
  Partition before;  // platforms grouped by the node's inputs
  Partition after;   // grouped by its outputs
};

Expected<std::vector<SetOrigin>> set_origins(const CaseData& c,
                                             const std::vector<std::string>& platforms,
                                             TensorCache& cache);
// The same from the case's layer table (layer_table), when the caller has it already.
std::vector<SetOrigin> set_origins(const CaseData& c, const std::vector<std::string>& platforms,
                                   const std::vector<LayerRow>& rows);

// Per case, the pairs that differ with their origins and, without a pair given, the set splits:
// what `origins` shows. `a` and `b` name one pair (both empty: every pair of the study's
// platforms); an unknown platform is an error naming the study's ones.
struct CaseOrigins {
  const CaseData* c = nullptr;
  std::vector<PairOrigins> pairs;  // compared and differing only
  std::vector<SetOrigin> splits;   // every pair only
};
Expected<std::vector<CaseOrigins>> study_origins(const StudyData& study, const std::string& a,
                                                 const std::string& b, TensorCache& cache);

}  // namespace ig

// Attribution of EQC splits (the paper's Section 3 as a table): at every node where a class of
// platforms splits although its members agreed on the node's inputs, the knobs in which the
// platforms on either side differ, named as the papers name causes. Between two libraries the
// spec says only `library`; `attribute` then asks `explain` (analysis/explain/explain.h) what each
// side's order is.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/compare/origins.h"
#include "analysis/study_data.h"
#include "platform/knobs.h"

namespace ig {

// The causes two platforms' specs differ in, as their backend's knob table names them (onednn
// isa -> simd-width, threads -> thread-split, fuse -> fusion, ...); two backends: `library`; one
// spec on two hosts: `host-cpu`.
std::vector<std::string> spec_causes(const KnobTables& knobs, const std::string& a_label,
                                     const std::string& b_label);

struct SplitSide {
  std::vector<std::string> platforms;  // one class after the split
};

struct SplitAttribution {
  std::string case_label;
  int64_t node_index = 0;
  std::string node, op_type;
  std::string a, b;  // the closest pair across the split (fewest differing knobs)
  std::vector<std::string> side_a, side_b;
  std::vector<std::string> causes;  // empty: none found
  std::string source;               // "knobs" (the specs differ in them) or "explain"
};

// One attribution per class born at a node (a class split into k gives k - 1), from the specs.
std::vector<SplitAttribution> attribute_splits(const KnobTables& knobs,
                                               const std::vector<SetOrigin>& splits);

// Splits per cause (a split with two causes counts for both), and those without a cause.
struct AttributionTable {
  std::map<std::string, int64_t> per_cause;
  int64_t splits = 0, unexplained = 0;
};
AttributionTable tabulate(const std::vector<SplitAttribution>& attributions);

// What `attribute` found in a study (workflow/attribute.h computes it).
struct AttributeOutcome {
  std::vector<SplitAttribution> splits;
  size_t cases = 0;
  // Why explain could not refine splits between libraries: the study kept no inner tensors.
  std::string not_kept;
};

}  // namespace ig

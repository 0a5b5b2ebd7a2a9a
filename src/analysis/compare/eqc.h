// Equivalence classes (DESIGN.md "EQC") of platforms per case and per layer, remaining precision
// of a set and of pairs, and where classes split or merge.
#pragma once

#include <string>
#include <vector>

#include "analysis/study_data.h"

namespace ig {

// Platforms grouped by bitwise-identical tensors, classes in order of first member.
struct Partition {
  std::vector<std::vector<std::string>> classes;
  std::vector<std::string> missing;  // platforms without an ok run or without these values
  int class_of(const std::string& platform) const;  // -1 if missing
};

// Classes over the tensors of `values` (all must be equal) in each platform's majority run.
Partition partition_values(const CaseData& c, const std::vector<std::string>& platforms,
                           const std::vector<std::string>& values);

// Remaining precision of two runs over `values`: the minimum over float values; -1 when no value
// is floating. Identical values cost no tensor load.
Expected<int> pair_precision(const RepRun& a, const RepRun& b,
                             const std::vector<std::string>& values, TensorCache& cache);

// Remaining precision of a partition's set (minimum over pairs of classes); -1 if one class or
// no floating value.
Expected<int> set_precision(const CaseData& c, const Partition& p,
                            const std::vector<std::string>& values, TensorCache& cache);

// Class names: A, B, ..., Z, AA, AB, ...
std::string class_name(int k);

// One platform's cell of the EQC matrix (platforms x cases): its class of the case's outputs, or
// the verdict of its first run where it has no ok run.
struct EqcCell {
  int cls = -1;                   // index into the partition's classes; -1: no class
  bool new_class = false;         // the platform is its class's first member in this case
  bool nondeterministic = false;  // its repetitions disagreed
  std::string verdict;            // when cls < 0: the first run's verdict, or "-" if none
  std::string text() const;       // "B", "B*" (new), "B~" (nondeterministic), or the verdict
};
EqcCell eqc_cell(const CaseData& c, const Partition& p, const std::string& platform);

struct LayerRow {
  int64_t node_index = 0;
  std::string node, op_type;
  std::vector<std::string> values;  // the node's captured outputs
  Partition partition;
  int remaining_precision = -1;
  // Share of elements on which the classes do not all agree bit for bit (the paper's Table SUP-8
  // "deviating values"); 0 with one class.
  double deviating_share = 0;
  std::map<std::string, std::string>
      notes;           // platform -> its note on this node (e.g. the algorithm)
  bool split = false;  // two platforms with equal inputs get different outputs here
  bool merge = false;  // two platforms with different inputs get equal outputs here
};

// Share of the elements of `values` on which the classes' representatives are not all bitwise
// equal (0 for one class or no comparable tensor).
Expected<double> deviating_share(const CaseData& c, const Partition& p,
                                 const std::vector<std::string>& values, TensorCache& cache);

// Every traced node of the case in topological order.
Expected<std::vector<LayerRow>> layer_table(const CaseData& c,
                                            const std::vector<std::string>& platforms,
                                            TensorCache& cache);

// Values a node reads that some node of the graph produces (graph inputs and initializers are
// equal for every platform of a case and are left out).
std::vector<std::string> produced_inputs(const CaseData& c, const StoredNode& node);

// Pairwise remaining precision over graph outputs, the minimum over cases; -1 where no pair ran.
Expected<std::vector<std::vector<int>>> precision_matrix(const StudyData& study,
                                                         TensorCache& cache);

}  // namespace ig

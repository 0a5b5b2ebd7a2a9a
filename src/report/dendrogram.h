// Hierarchical clustering of equivalence classes by remaining precision (the paper's Fig 6):
// complete linkage on similarity, so a merge's height is the remaining precision of the merged
// set (the minimum over its pairs, as DESIGN.md defines a set's RP).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ig {

struct Dendrogram {
  // Nodes 0..n-1 are the leaves (input order); merge i creates node n+i.
  struct Merge {
    int a = 0, b = 0;
    int precision = 0;  // bits all members of the merged set still agree on
  };
  std::vector<Merge> merges;
  std::vector<int> order;  // leaves left to right, so that no branches cross
};

// `precision[i][j]`: remaining precision between classes i and j (negative: unknown, taken as 0).
// Ties merge the lowest node ids first, so the result is deterministic.
Dendrogram cluster_by_precision(const std::vector<std::vector<int>>& precision);

// Line segments {x, x2, y, y2} and leaf positions {x, y, label} for drawing; leaves sit at `top`
// bits, merges at their precision.
nlohmann::json dendrogram_drawing(const Dendrogram& d, const std::vector<std::string>& labels,
                                  int top);

}  // namespace ig

#include "report/dendrogram.h"

#include <algorithm>
#include <functional>

namespace ig {

Dendrogram cluster_by_precision(const std::vector<std::vector<int>>& precision) {
  const int n = static_cast<int>(precision.size());
  Dendrogram d;
  // Active clusters: node id and leaf members.
  std::vector<std::pair<int, std::vector<int>>> active;
  for (int i = 0; i < n; ++i) active.push_back({i, {i}});
  auto link = [&](const std::vector<int>& x, const std::vector<int>& y) {
    int bits = INT32_MAX;
    for (int i : x)
      for (int j : y)
        bits =
            std::min(bits, std::max(0, precision[static_cast<size_t>(i)][static_cast<size_t>(j)]));
    return bits;
  };
  while (active.size() > 1) {
    size_t best_i = 0, best_j = 1;
    int best = -1;
    for (size_t i = 0; i < active.size(); ++i)
      for (size_t j = i + 1; j < active.size(); ++j) {
        const int bits = link(active[i].second, active[j].second);
        if (bits > best) best = bits, best_i = i, best_j = j;
      }
    Dendrogram::Merge m{active[best_i].first, active[best_j].first, best};
    std::vector<int> members = active[best_i].second;
    members.insert(members.end(), active[best_j].second.begin(), active[best_j].second.end());
    active.erase(active.begin() + static_cast<std::ptrdiff_t>(best_j));
    active[best_i] = {n + static_cast<int>(d.merges.size()), std::move(members)};
    d.merges.push_back(m);
  }
  std::function<void(int)> walk = [&](int node) {
    if (node < n) return d.order.push_back(node);
    const auto& m = d.merges[static_cast<size_t>(node - n)];
    walk(m.a);
    walk(m.b);
  };
  if (n > 0) walk(d.merges.empty() ? 0 : n + static_cast<int>(d.merges.size()) - 1);
  return d;
}

nlohmann::json dendrogram_drawing(const Dendrogram& d, const std::vector<std::string>& labels,
                                  int top) {
  const size_t n = labels.size();
  std::vector<double> x(n + d.merges.size()), y(n + d.merges.size());
  nlohmann::json leaves = nlohmann::json::array();
  for (size_t pos = 0; pos < d.order.size(); ++pos) {
    const auto leaf = static_cast<size_t>(d.order[pos]);
    x[leaf] = static_cast<double>(pos);
    y[leaf] = top;
    leaves.push_back({{"x", x[leaf]}, {"y", top}, {"label", labels[leaf]}});
  }
  nlohmann::json segments = nlohmann::json::array();
  for (size_t i = 0; i < d.merges.size(); ++i) {
    const auto& m = d.merges[i];
    const auto a = static_cast<size_t>(m.a), b = static_cast<size_t>(m.b);
    x[n + i] = (x[a] + x[b]) / 2;
    y[n + i] = m.precision;
    segments.push_back({{"x", x[a]}, {"x2", x[a]}, {"y", y[a]}, {"y2", m.precision}});
    segments.push_back({{"x", x[b]}, {"x2", x[b]}, {"y", y[b]}, {"y2", m.precision}});
    segments.push_back({{"x", x[a]}, {"x2", x[b]}, {"y", m.precision}, {"y2", m.precision}});
  }
  return {{"segments", segments}, {"leaves", leaves}, {"top", top}};
}

}  // namespace ig

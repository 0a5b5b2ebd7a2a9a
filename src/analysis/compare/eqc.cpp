#include "analysis/compare/eqc.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "analysis/compare/compare.h"

namespace ig {

int Partition::class_of(const std::string& platform) const {
  for (size_t i = 0; i < classes.size(); ++i)
    if (std::find(classes[i].begin(), classes[i].end(), platform) != classes[i].end())
      return static_cast<int>(i);
  return -1;
}

std::string class_name(int k) {
  std::string s;
  for (int n = k + 1; n > 0; n = (n - 1) / 26)
    s.insert(s.begin(), static_cast<char>('A' + (n - 1) % 26));
  return s;
}

std::string EqcCell::text() const {
  if (cls < 0) return verdict;
  return class_name(cls) + (new_class ? "*" : "") + (nondeterministic ? "~" : "");
}

EqcCell eqc_cell(const CaseData& c, const Partition& p, const std::string& platform) {
  EqcCell cell;
  cell.cls = p.class_of(platform);
  if (cell.cls < 0) {
    auto it = c.runs.find(platform);
    cell.verdict = it == c.runs.end() || it->second.reps.empty()
                       ? std::string("-")
                       : std::string(verdict_name(it->second.reps.front().verdict));
    return cell;
  }
  cell.new_class = p.classes[static_cast<size_t>(cell.cls)].front() == platform;
  cell.nondeterministic = c.runs.at(platform).nondeterministic();
  return cell;
}

namespace {

// Keys of `values` in run r; false if one is missing.
bool keys_of(const RepRun& r, const std::vector<std::string>& values, std::vector<TensorKey>& out) {
  out.clear();
  for (const auto& v : values) {
    auto it = r.values.find(v);
    if (it == r.values.end()) return false;
    out.push_back(it->second);
  }
  return true;
}

}  // namespace

Partition partition_values(const CaseData& c, const std::vector<std::string>& platforms,
                           const std::vector<std::string>& values) {
  Partition p;
  std::map<std::vector<TensorKey>, size_t> index;
  std::vector<TensorKey> keys;
  for (const auto& name : platforms) {
    auto it = c.runs.find(name);
    const RepRun* r = it == c.runs.end() ? nullptr : it->second.run();
    if (!r || !keys_of(*r, values, keys)) {
      p.missing.push_back(name);
      continue;
    }
    auto [pos, inserted] = index.emplace(keys, p.classes.size());
    if (inserted) p.classes.emplace_back();
    p.classes[pos->second].push_back(name);
  }
  return p;
}

Expected<int> pair_precision(const RepRun& a, const RepRun& b,
                             const std::vector<std::string>& values, TensorCache& cache) {
  int rp = -1;
  for (const auto& v : values) {
    auto ia = a.values.find(v);
    auto ib = b.values.find(v);
    if (ia == a.values.end() || ib == b.values.end() || !is_float(ia->second.dtype)) continue;
    int bits;
    if (ia->second == ib->second) {
      bits = dtype_info(ia->second.dtype).mantissa_bits;
    } else {
      std::string ka = TensorFacts::key(ia->second), kb = TensorFacts::key(ib->second);
      if (kb < ka) std::swap(ka, kb);  // the measure is symmetric: one fact per pair
      if (auto known = cache.facts().find(TensorFacts::kRemainingPrecision, ka, kb)) {
        bits = static_cast<int>(*known);
      } else {
        IG_ASSIGN_OR_RETURN(Tensor ta, cache.get(ia->second));
        IG_ASSIGN_OR_RETURN(Tensor tb, cache.get(ib->second));
        bits = std::max(0, tensor_remaining_precision(ta, tb));
        cache.facts().learn(TensorFacts::kRemainingPrecision, ka, kb, bits);
      }
    }
    rp = rp < 0 ? bits : std::min(rp, bits);
  }
  return rp;
}

Expected<int> set_precision(const CaseData& c, const Partition& p,
                            const std::vector<std::string>& values, TensorCache& cache) {
  if (p.classes.size() < 2) return -1;
  int rp = -1;
  // Members of one class are identical: one representative per class is enough.
  for (size_t i = 0; i < p.classes.size(); ++i) {
    for (size_t j = i + 1; j < p.classes.size(); ++j) {
      const RepRun* a = c.runs.at(p.classes[i][0]).run();
      const RepRun* b = c.runs.at(p.classes[j][0]).run();
      IG_ASSIGN_OR_RETURN(int bits, pair_precision(*a, *b, values, cache));
      if (bits >= 0) rp = rp < 0 ? bits : std::min(rp, bits);
    }
  }
  return rp;
}

Expected<double> deviating_share(const CaseData& c, const Partition& p,
                                 const std::vector<std::string>& values, TensorCache& cache) {
  if (p.classes.size() < 2) return 0.0;
  int64_t total = 0, deviating = 0;
  const RepRun* first = c.runs.at(p.classes[0][0]).run();
  for (const auto& v : values) {
    auto i0 = first->values.find(v);
    if (i0 == first->values.end()) continue;
    // The classes' tensors of this value comparable with the first class's; the elements where
    // they do not all agree depend only on that set of tensors.
    std::vector<TensorKey> others;
    std::vector<std::string> names{TensorFacts::key(i0->second)};
    for (size_t k = 1; k < p.classes.size(); ++k) {
      const RepRun* other = c.runs.at(p.classes[k][0]).run();
      auto it = other->values.find(v);
      if (it == other->values.end() || it->second.dtype != i0->second.dtype ||
          it->second.shape != i0->second.shape)
        continue;
      others.push_back(it->second);
      names.push_back(TensorFacts::key(it->second));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string set;
    for (const auto& n : names) set += (set.empty() ? "" : ";") + n;
    int64_t numel = 1;
    for (int64_t d : i0->second.shape) numel *= d;
    total += numel;
    if (auto known = cache.facts().find(TensorFacts::kDeviating, set, "")) {
      deviating += static_cast<int64_t>(*known);
      continue;
    }
    IG_ASSIGN_OR_RETURN(Tensor t0, cache.get(i0->second));
    const size_t width = dtype_size(t0.dtype());
    std::vector<bool> differs(static_cast<size_t>(t0.numel()), false);
    for (const TensorKey& key : others) {
      IG_ASSIGN_OR_RETURN(Tensor tk, cache.get(key));
      const auto* a = reinterpret_cast<const unsigned char*>(t0.raw());
      const auto* b = reinterpret_cast<const unsigned char*>(tk.raw());
      for (size_t e = 0; e < differs.size(); ++e)
        if (!differs[e] && std::memcmp(a + e * width, b + e * width, width) != 0) differs[e] = true;
    }
    const auto count = std::count(differs.begin(), differs.end(), true);
    cache.facts().learn(TensorFacts::kDeviating, set, "", static_cast<double>(count));
    deviating += count;
  }
  return total == 0 ? 0.0 : static_cast<double>(deviating) / static_cast<double>(total);
}

std::vector<std::string> produced_inputs(const CaseData& c, const StoredNode& node) {
  std::set<std::string> produced;
  for (const auto& n : c.nodes)
    for (const auto& o : n.outputs) produced.insert(o);
  std::vector<std::string> out;
  for (const auto& in : node.inputs)
    if (!in.empty() && produced.count(in) && std::find(out.begin(), out.end(), in) == out.end())
      out.push_back(in);
  return out;
}

Expected<std::vector<LayerRow>> layer_table(const CaseData& c,
                                            const std::vector<std::string>& platforms,
                                            TensorCache& cache) {
  // Values any platform captured: nodes without captured outputs are not layers of this study.
  std::set<std::string> captured;
  for (const auto& [_, pc] : c.runs)
    if (const RepRun* r = pc.run())
      for (const auto& [v, k] : r->values) captured.insert(v);
  std::vector<LayerRow> rows;
  for (const auto& node : c.nodes) {
    LayerRow row;
    row.node_index = node.index;
    row.node = node.name;
    row.op_type = node.op_type;
    for (const auto& o : node.outputs)
      if (!o.empty() && captured.count(o)) row.values.push_back(o);
    if (row.values.empty()) continue;
    row.partition = partition_values(c, platforms, row.values);
    IG_ASSIGN_OR_RETURN(row.remaining_precision,
                        set_precision(c, row.partition, row.values, cache));
    IG_ASSIGN_OR_RETURN(row.deviating_share, deviating_share(c, row.partition, row.values, cache));
    for (const auto& p : platforms) {
      auto it = c.runs.find(p);
      const RepRun* r = it == c.runs.end() ? nullptr : it->second.run();
      if (!r) continue;
      for (const auto& v : row.values)
        if (auto n = r->notes.find(v); n != r->notes.end()) row.notes[p] = n->second;
    }
    const Partition in = partition_values(c, platforms, produced_inputs(c, node));
    for (size_t i = 0; i < platforms.size(); ++i) {
      for (size_t j = i + 1; j < platforms.size(); ++j) {
        const int oi = row.partition.class_of(platforms[i]);
        const int oj = row.partition.class_of(platforms[j]);
        const int ii = in.class_of(platforms[i]);
        const int ij = in.class_of(platforms[j]);
        if (oi < 0 || oj < 0 || ii < 0 || ij < 0) continue;
        if (ii == ij && oi != oj) row.split = true;
        if (ii != ij && oi == oj) row.merge = true;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Expected<std::vector<std::vector<int>>> precision_matrix(const StudyData& study,
                                                         TensorCache& cache) {
  const size_t n = study.platforms.size();
  std::vector<std::vector<int>> m(n, std::vector<int>(n, -1));
  for (const auto& c : study.cases) {
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = i; j < n; ++j) {
        auto ia = c.runs.find(study.platforms[i].label);
        auto ib = c.runs.find(study.platforms[j].label);
        if (ia == c.runs.end() || ib == c.runs.end()) continue;
        const RepRun* a = ia->second.run();
        const RepRun* b = ib->second.run();
        if (!a || !b) continue;
        IG_ASSIGN_OR_RETURN(int bits, pair_precision(*a, *b, c.outputs, cache));
        if (bits < 0) continue;
        int& cell = m[i][j];
        cell = cell < 0 ? bits : std::min(cell, bits);
        m[j][i] = cell;
      }
    }
  }
  return m;
}

}  // namespace ig

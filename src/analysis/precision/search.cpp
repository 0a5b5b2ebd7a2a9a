#include "analysis/precision/search.h"

#include <algorithm>
#include <map>

namespace ig {

namespace {

class Searcher {
 public:
  Searcher(const std::vector<std::string>& ranked, const TryKept& t) : ranked_(ranked), try_(t) {
    for (size_t i = 0; i < ranked.size(); ++i) rank_[ranked[i]] = i;
  }

  Expected<bool> meets(std::vector<std::string> kept, const char* phase) {
    std::sort(kept.begin(), kept.end(),
              [&](const std::string& a, const std::string& b) { return rank_[a] < rank_[b]; });
    auto it = cache_.find(kept);
    if (it != cache_.end()) return it->second;
    IG_ASSIGN_OR_RETURN(TrialResult r, try_(kept));
    out_.trials.push_back({kept, r.meets, r.how, phase});
    cache_[kept] = r.meets;
    return r.meets;
  }

  // The shortest prefix of the ranking that meets the bound; `n` (all) is known to meet it.
  Expected<size_t> shortest_prefix(size_t n) {
    size_t lo = 0, hi = n;  // prefix lo misses, prefix hi meets
    while (hi - lo > 1) {
      const size_t mid = lo + (hi - lo) / 2;
      IG_ASSIGN_OR_RETURN(bool ok, meets(prefix(mid), "prefix"));
      (ok ? hi : lo) = mid;
    }
    return hi;
  }

  // Zeller's ddmin over `set`, which meets the bound; the result meets it and is 1-minimal.
  Expected<std::vector<std::string>> ddmin(std::vector<std::string> set) {
    size_t n = 2;
    while (set.size() >= 2) {
      const auto chunks = split(set, n);
      bool reduced = false;
      for (const auto& c : chunks) {
        IG_ASSIGN_OR_RETURN(bool ok, meets(c, "ddmin"));
        if (ok) {
          set = c;
          n = 2;
          reduced = true;
          break;
        }
      }
      for (size_t i = 0; !reduced && i < chunks.size() && chunks.size() > 2; ++i) {
        auto rest = complement(set, chunks[i]);
        IG_ASSIGN_OR_RETURN(bool ok, meets(rest, "ddmin"));
        if (ok) {
          set = std::move(rest);
          n = std::max<size_t>(n - 1, 2);
          reduced = true;
        }
      }
      if (reduced) continue;
      if (n >= set.size()) break;
      n = std::min(2 * n, set.size());
    }
    return set;
  }

  std::vector<std::string> prefix(size_t k) const {
    return {ranked_.begin(), ranked_.begin() + static_cast<std::ptrdiff_t>(k)};
  }
  PrecisionSearch& out() { return out_; }

 private:
  static std::vector<std::vector<std::string>> split(const std::vector<std::string>& s, size_t n) {
    std::vector<std::vector<std::string>> out;
    size_t start = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t end = start + (s.size() - start) / (n - i);
      out.emplace_back(s.begin() + static_cast<std::ptrdiff_t>(start),
                       s.begin() + static_cast<std::ptrdiff_t>(end));
      start = end;
    }
    return out;
  }
  static std::vector<std::string> complement(const std::vector<std::string>& s,
                                             const std::vector<std::string>& c) {
    std::vector<std::string> out;
    for (const auto& x : s)
      if (std::find(c.begin(), c.end(), x) == c.end()) out.push_back(x);
    return out;
  }

  const std::vector<std::string>& ranked_;
  const TryKept& try_;
  std::map<std::string, size_t> rank_;
  std::map<std::vector<std::string>, bool> cache_;
  PrecisionSearch out_;
};

}  // namespace

Expected<PrecisionSearch> search_keep_in_float(const std::vector<std::string>& ranked,
                                               const TryKept& try_kept) {
  Searcher s(ranked, try_kept);
  IG_ASSIGN_OR_RETURN(bool none_needed, s.meets({}, "start"));
  if (none_needed) {
    s.out().found = true;
    return s.out();
  }
  IG_ASSIGN_OR_RETURN(bool all_meet, s.meets(ranked, "all"));
  if (!all_meet) return s.out();
  IG_ASSIGN_OR_RETURN(size_t k, s.shortest_prefix(ranked.size()));
  s.out().prefix = k;
  IG_ASSIGN_OR_RETURN(s.out().kept, s.ddmin(s.prefix(k)));
  // ddmin only shrinks from sets that met the bound; the singletons of the last round are tried
  // there, so a single layer left is 1-minimal because the empty set missed.
  s.out().found = true;
  return s.out();
}

}  // namespace ig

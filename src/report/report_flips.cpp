// Top-1 label flips against the oracle, for the report's summary and its oracle section: a
// classifier's answer is its argmax, so a platform whose bits differ only matters to its users
// where that argmax moves.
#include <map>

#include "analysis/compare/compare.h"
#include "analysis/oracle/oracle.h"
#include "report/report_data.h"
#include "tensor/convert.h"

namespace ig {

namespace {

// A graph output read as rows of scores: floating, with a last axis of two classes or more.
bool classifier_like(const Tensor& t) {
  return is_float(t.dtype()) && t.rank() >= 1 && t.dim(-1) >= 2 && t.numel() > 0;
}

}  // namespace

Expected<nlohmann::json> label_flips_data(const StudyData& study, TensorCache& cache) {
  nlohmann::json platforms = nlohmann::json::array();
  int64_t total_flips = 0;
  for (const auto& p : study.platforms) {
    int64_t rows = 0, flips = 0;
    nlohmann::json cases = nlohmann::json::array();
    for (const auto& c : study.cases) {
      const RepRun* o = oracle_run(study, c);
      auto it = c.runs.find(p.label);
      const RepRun* r = it == c.runs.end() ? nullptr : it->second.run();
      if (!o || !r) continue;
      int64_t case_flips = 0;
      for (const auto& v : c.outputs) {
        if (!r->values.count(v) || !o->values.count(v)) continue;
        IG_ASSIGN_OR_RETURN(Tensor tp, cache.get(r->values.at(v)));
        IG_ASSIGN_OR_RETURN(Tensor to, cache.get(o->values.at(v)));
        if (!classifier_like(tp) || !classifier_like(to) || tp.shape() != to.shape()) continue;
        // The argmax is compared in the oracle's (wider) type: converting a float up is exact.
        const Comparison cmp = compare_tensors(
            tp.dtype() == to.dtype() ? tp : convert_float_tensor(tp, to.dtype()), to);
        rows += cmp.rows;
        case_flips += cmp.top1_flips;
      }
      if (case_flips > 0) cases.push_back({{"case", c.label()}, {"flips", case_flips}});
      flips += case_flips;
    }
    if (rows == 0) continue;
    total_flips += flips;
    platforms.push_back(
        {{"platform", p.label}, {"rows", rows}, {"flips", flips}, {"cases", cases}});
  }
  return nlohmann::json{{"platforms", platforms}, {"flips", total_flips}};
}

}  // namespace ig

#include "analysis/oracle/oracle.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/compare/compare.h"
#include "analysis/precision/quant_steps.h"
#include "tensor/convert.h"

namespace ig {

const RepRun* oracle_run(const StudyData& study, const CaseData& c) {
  for (const auto& o : study.oracles) {
    auto it = c.runs.find(o.label);
    if (it != c.runs.end() && it->second.run()) return it->second.run();
  }
  return nullptr;
}

OracleComparison compare_with_oracle(const Tensor& platform, const Tensor& oracle) {
  OracleComparison r;
  if (platform.shape() != oracle.shape() || !is_float(platform.dtype()) ||
      !is_float(oracle.dtype()) ||
      dtype_info(oracle.dtype()).mantissa_bits < dtype_info(platform.dtype()).mantissa_bits) {
    // Same-dtype non-float outputs still compare exactly.
    const Comparison c = compare_tensors(platform, oracle);
    r.comparable = c.comparable;
    r.why_not = c.why_not;
    r.max_abs_error = c.max_abs_error;
    r.max_rel_error = c.max_rel_error;
    return r;
  }
  r.comparable = true;
  // Errors against the oracle's own precision; ULP and RP in the platform's format.
  const Comparison wide =
      oracle.dtype() == platform.dtype()
          ? compare_tensors(platform, oracle)
          : compare_tensors(convert_float_tensor(platform, oracle.dtype()), oracle);
  const Comparison narrow =
      oracle.dtype() == platform.dtype()
          ? wide
          : compare_tensors(platform, convert_float_tensor(oracle, platform.dtype()));
  r.max_abs_error = wide.max_abs_error;
  r.max_rel_error = wide.max_rel_error;
  r.max_ulp = narrow.max_ulp;
  r.remaining_precision = narrow.remaining_precision;
  return r;
}

Expected<std::vector<OracleError>> oracle_ranking(const StudyData& study, TensorCache& cache) {
  std::vector<OracleError> out;
  for (const auto& p : study.platforms) {
    OracleError e;
    e.platform = p.label;
    for (const auto& c : study.cases) {
      const RepRun* o = oracle_run(study, c);
      auto it = c.runs.find(p.label);
      const RepRun* r = it == c.runs.end() ? nullptr : it->second.run();
      if (!o || !r) continue;
      bool any = false;
      const auto quant = quant_index_of(c);
      for (const auto& v : c.outputs) {
        if (!r->values.count(v) || !o->values.count(v)) continue;
        IG_ASSIGN_OR_RETURN(Tensor tp, cache.get(r->values.at(v)));
        IG_ASSIGN_OR_RETURN(Tensor to, cache.get(o->values.at(v)));
        const OracleComparison oc = compare_with_oracle(tp, to);
        if (!oc.comparable) continue;
        any = true;
        if (quant) {
          IG_ASSIGN_OR_RETURN(auto steps, value_steps(*quant, *r, *o, v, cache));
          if (steps && (steps->steps_max > e.steps_max ||
                        (steps->steps_max == e.steps_max && steps->steps_share > e.steps_share))) {
            e.steps_max = steps->steps_max;
            e.steps_share = steps->steps_share;
          }
        }
        e.max_abs_error = std::max(e.max_abs_error, oc.max_abs_error);
        e.max_rel_error = std::max(e.max_rel_error, oc.max_rel_error);
        e.max_ulp = std::max(e.max_ulp, oc.max_ulp);
        if (oc.remaining_precision >= 0)
          e.remaining_precision = e.remaining_precision < 0
                                      ? oc.remaining_precision
                                      : std::min(e.remaining_precision, oc.remaining_precision);
      }
      e.cases += any;
    }
    if (e.cases) out.push_back(e);
  }
  std::stable_sort(out.begin(), out.end(), [](const OracleError& a, const OracleError& b) {
    // Quantized outputs: steps first (every platform is "billions of ULPs" off there).
    if (a.steps_max >= 0 && b.steps_max >= 0 &&
        (a.steps_max != b.steps_max || a.steps_share != b.steps_share))
      return a.steps_max != b.steps_max ? a.steps_max < b.steps_max : a.steps_share < b.steps_share;
    return a.max_ulp != b.max_ulp ? a.max_ulp < b.max_ulp : a.max_abs_error < b.max_abs_error;
  });
  for (size_t i = 0; i < out.size(); ++i) out[i].rank = static_cast<int>(i) + 1;
  return out;
}

Expected<std::vector<ToleranceAdvice>> tolerance_advice(const StudyData& study,
                                                        TensorCache& cache) {
  std::map<std::pair<std::string, std::string>, ToleranceAdvice> advice;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& c : study.cases) {
    const RepRun* o = oracle_run(study, c);
    for (const auto& v : c.outputs) {
      const auto key = std::make_pair(c.model_name, v);
      if (!advice.count(key)) {
        advice[key] = {c.model_name, v, o ? "oracle" : "pairwise"};
        order.push_back(key);
      }
      ToleranceAdvice& a = advice[key];
      // Every distinct tensor any platform produced in any repetition.
      std::set<TensorKey> seen;
      for (const auto& p : study.platforms) {
        auto it = c.runs.find(p.label);
        if (it == c.runs.end()) continue;
        for (const auto& r : it->second.reps)
          if (r.verdict == Verdict::kOk && r.values.count(v)) seen.insert(r.values.at(v));
      }
      a.tensors += static_cast<int64_t>(seen.size());
      std::vector<TensorKey> refs;
      if (o && o->values.count(v)) {
        refs.push_back(o->values.at(v));
      } else {
        a.reference = "pairwise";
        refs.assign(seen.begin(), seen.end());
      }
      for (const auto& ref : refs) {
        IG_ASSIGN_OR_RETURN(Tensor tr, cache.get(ref));
        for (const auto& k : seen) {
          if (k == ref) continue;
          IG_ASSIGN_OR_RETURN(Tensor t, cache.get(k));
          const OracleComparison oc = compare_with_oracle(t, tr);
          if (!oc.comparable) continue;
          a.atol = std::max(a.atol, oc.max_abs_error);
          a.rtol = std::max(a.rtol, oc.max_rel_error);
          a.ulp = std::max(a.ulp, oc.max_ulp);
        }
      }
    }
  }
  std::vector<ToleranceAdvice> out;
  for (const auto& k : order) out.push_back(advice[k]);
  return out;
}

nlohmann::json oracle_error_json(const OracleError& e) {
  nlohmann::json j = {{"rank", e.rank},
                      {"platform", e.platform},
                      {"cases", e.cases},
                      {"max_ulp", e.max_ulp},
                      {"max_abs_error", e.max_abs_error},
                      {"max_rel_error", e.max_rel_error},
                      {"remaining_precision", e.remaining_precision}};
  if (e.steps_max >= 0) {
    j["steps_max"] = steps_json(e.steps_max);
    j["steps_share"] = e.steps_share;
  }
  return j;
}

}  // namespace ig

#include "analysis/self_check/verdict.h"

#include <fmt/format.h>

#include "analysis/oracle/error.h"

namespace ig {

std::string_view self_check_verdict_name(SelfCheckVerdict v) {
  return kSelfCheckVerdictNames[static_cast<size_t>(v)];
}

bool needs_self_check(const ErrorSpan& s) {
  return s.output_error > kGrossError && s.input_error <= kInputsAgree;
}

namespace {

const StoredSelfCheck* find_rerun(const std::vector<StoredSelfCheck>& reruns,
                                  const std::string& value, SelfCheckKind kind) {
  for (const auto& r : reruns)
    if (r.value == value && r.kind == kind) return &r;
  return nullptr;
}

Expected<OracleTensorError> error_between(const Tensor& y, const TensorKey& reference,
                                          TensorCache& cache) {
  IG_ASSIGN_OR_RETURN(Tensor ref, cache.get(reference));
  return oracle_tensor_error(y, ref);
}

}  // namespace

Expected<SelfCheck> self_check_of(const ErrorSpan& s, const RepRun& run, const RepRun& oracle,
                                  const std::vector<StoredSelfCheck>& reruns, TensorCache& cache) {
  SelfCheck sc;
  if (!needs_self_check(s)) return sc;
  const StoredSelfCheck* unfused = find_rerun(reruns, s.worst_output, SelfCheckKind::kUnfused);
  const StoredSelfCheck* exact = find_rerun(reruns, s.worst_output, SelfCheckKind::kOracle);
  if (!unfused) {
    sc.verdict = SelfCheckVerdict::kNotRun;
    sc.reason = "no re-run stored (the study ran without the self-check)";
    return sc;
  }
  sc.unfused_spec = unfused->spec;
  if (unfused->verdict != Verdict::kOk || !unfused->tensor) {
    sc.verdict = SelfCheckVerdict::kFailed;
    sc.reason = fmt::format("alone on {}: {}: {}", unfused->spec, verdict_name(unfused->verdict),
                            unfused->reason);
    return sc;
  }
  // The reference: the oracle on the platform's own inputs where it ran, else the oracle's trace.
  const bool have_exact = exact && exact->verdict == Verdict::kOk && exact->tensor;
  const TensorKey reference = have_exact ? *exact->tensor : oracle.values.at(s.worst_output);
  // From the kept tensor facts where the study learned them (inner tensors may not be kept).
  const TensorKey& traced = run.values.at(s.worst_output);
  IG_ASSIGN_OR_RETURN(const double unfused_error, cache.oracle_error(*unfused->tensor, reference));
  IG_ASSIGN_OR_RETURN(const double local_error, cache.oracle_error(traced, reference));
  for (const TensorKey* y : {&*unfused->tensor, &traced}) {
    if ((y == &traced ? local_error : unfused_error) >= 0) continue;
    IG_ASSIGN_OR_RETURN(Tensor t, cache.get(*y));
    IG_ASSIGN_OR_RETURN(const OracleTensorError e, error_between(t, reference, cache));
    sc.verdict = SelfCheckVerdict::kFailed;
    sc.reason = "a re-run's output cannot be compared: " + e.why_not;
    return sc;
  }
  sc.unfused_error = unfused_error;
  std::string against = "the oracle on the same inputs";
  if (have_exact) {
    sc.local_error = local_error;
    if (sc.local_error <= kGrossError) {
      sc.verdict = SelfCheckVerdict::kIllConditioned;
      sc.reason = fmt::format(
          "exact arithmetic on the platform's own inputs is {:.3g} from its output: the op "
          "amplifies its inputs' error of {:.3g}",
          sc.local_error, s.input_error);
      return sc;
    }
  } else {
    against = "the oracle's trace (the oracle's re-run " +
              (exact ? std::string(verdict_name(exact->verdict)) + ": " + exact->reason
                     : std::string("is missing")) +
              ")";
  }
  const std::string what =
      s.covers.size() > 1 ? fmt::format("{} nodes", s.covers.size()) : s.op_type;
  if (sc.unfused_error > kGrossError) {
    sc.verdict = SelfCheckVerdict::kKernel;
    sc.reason = fmt::format("alone and unfused on {}, the {} is still {:.3g} off {}", unfused->spec,
                            what, sc.unfused_error, against);
  } else if (s.integer_group) {
    sc.verdict = SelfCheckVerdict::kIntegerKernel;
    sc.reason = fmt::format(
        "in the run one integer kernel, {:.3g} off; alone and unfused on {}, the {} is computed "
        "in float, {:.3g} off {}: `explain --node '{}'` tells the kernel's integer arithmetic "
        "from our int8 mapping",
        s.output_error, unfused->spec, what, sc.unfused_error, against, s.node);
  } else {
    sc.verdict = s.fused ? SelfCheckVerdict::kSuspectFusion : SelfCheckVerdict::kSuspectAdapter;
    sc.reason = fmt::format("alone and unfused on {}, the {} is {:.3g} off {}; in the run, {:.3g}",
                            unfused->spec, what, sc.unfused_error, against, s.output_error);
  }
  return sc;
}

}  // namespace ig

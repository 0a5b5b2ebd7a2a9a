#include "analysis/oracle/origins.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "analysis/json_measure.h"
#include "analysis/oracle/error.h"
#include "analysis/oracle/oracle.h"

namespace ig {

double error_jump(const ErrorSpan& s) {
  const double floor = std::max(s.input_error, unit_roundoff(s.dtype));
  if (floor > 0) return s.output_error / floor;
  return s.output_error > 0 ? std::numeric_limits<double>::infinity() : 0;
}

bool is_born(const ErrorSpan& s) {
  if (!is_float(s.dtype)) return s.output_error > 0 && s.input_error == 0;
  return error_jump(s) >= kBornJump;
}

Expected<std::optional<SpanSteps>> span_steps(const QuantIndex& index, const ErrorSpan& s,
                                              const RepRun& run, const RepRun& oracle,
                                              TensorCache& cache) {
  IG_ASSIGN_OR_RETURN(auto out, values_steps(index, run, oracle, s.outputs, cache));
  if (!out) return std::optional<SpanSteps>();
  SpanSteps st;
  st.output = out->steps;
  st.output_value = out->value;
  for (const auto& v : s.inputs) {
    IG_ASSIGN_OR_RETURN(auto in, value_steps(index, run, oracle, v, cache, &out->quant));
    if (!in) {
      st.inputs_measured = false;
      continue;
    }
    st.input_steps_max = std::max(st.input_steps_max, in->steps_max);
    st.input_steps_share = std::max(st.input_steps_share, in->steps_share);
  }
  return std::optional<SpanSteps>(st);
}

namespace {

// The steps rule decides: a quantized output whose inputs are all within half a step.
bool quiet_inputs(const std::optional<SpanSteps>& steps) {
  return steps && steps->inputs_measured && steps->input_steps_max < kStepsQuietInput;
}

}  // namespace

bool is_born(const ErrorSpan& s, const std::optional<SpanSteps>& steps) {
  if (!steps) return is_born(s);
  if (quiet_inputs(steps)) return makes_steps(steps->output);
  return error_jump(s) >= kBornJump;
}

bool wants_replay(const ErrorSpan& s, const std::optional<SpanSteps>& steps) {
  if (is_born(s, steps)) return true;
  if (steps) return makes_steps(steps->output);
  return is_float(s.dtype) && s.output_error >= kBornJump * unit_roundoff(s.dtype) &&
         error_jump(s) >= kReplayJump;
}

std::string_view born_by_name(BornBy b) {
  static constexpr std::array<std::string_view, 3> kNames = {"jump", "steps", "replay"};
  return kNames[static_cast<size_t>(b)];
}

namespace {

// The span's replay on the oracle (a stored oracle re-run of its worst output), judged; nullopt
// where the study stored none that ran ok.
Expected<std::optional<LocalReplay>> local_replay(const QuantIndex& index, const ErrorSpan& s,
                                                  const std::optional<SpanSteps>& steps,
                                                  const RepRun& run,
                                                  const std::vector<StoredSelfCheck>& reruns,
                                                  TensorCache& cache) {
  const StoredSelfCheck* found = nullptr;
  for (const auto& r : reruns)
    if (r.value == s.worst_output && r.kind == SelfCheckKind::kOracle &&
        r.verdict == Verdict::kOk && r.tensor)
      found = &r;
  if (!found) return std::optional<LocalReplay>();
  LocalReplay replay;
  replay.spec = found->spec;
  IG_ASSIGN_OR_RETURN(replay.local_error,
                      cache.oracle_error(run.values.at(s.worst_output), *found->tensor));
  if (replay.local_error < 0) return std::optional<LocalReplay>();
  if (steps) {
    RepRun replayed;
    replayed.values[s.worst_output] = *found->tensor;
    IG_ASSIGN_OR_RETURN(replay.steps, value_steps(index, run, replayed, s.worst_output, cache));
  }
  replay.born = replay.steps ? makes_steps(*replay.steps)
                             : replay.local_error >= kReplayShare * s.output_error;
  return std::optional<LocalReplay>(replay);
}

}  // namespace

Expected<std::vector<OracleOrigin>> oracle_origins(const StudyData& study, TensorCache& cache,
                                                   std::vector<OracleOrigin>* largest) {
  std::vector<OracleOrigin> out;
  if (largest) largest->clear();
  for (const auto& p : study.platforms) {
    std::vector<OracleOrigin> mine;
    OracleOrigin top;
    for (const auto& c : study.cases) {
      const RepRun* oracle = oracle_run(study, c);
      auto it = c.runs.find(p.label);
      const RepRun* run = it == c.runs.end() ? nullptr : it->second.run();
      if (!oracle || !run) continue;
      auto found = error_spans(c, *run, *oracle, cache);
      // A run added after an earlier study dropped the oracle's inner tensors has no origins.
      if (!found.ok() && tensor_not_kept(found.status())) {
        cache.note_not_kept(fmt::format("no divergence origins for {} on {}: {}", p.label,
                                        c.label(), found.status().message()));
        continue;
      }
      IG_ASSIGN_OR_RETURN(auto spans, std::move(found));
      auto reruns = study.self_checks.find(run->run_id);
      static const std::vector<StoredSelfCheck> kNone;
      const auto quant = quant_index_of(c);
      for (auto& s : spans) {
        IG_ASSIGN_OR_RETURN(auto steps, span_steps(*quant, s, *run, *oracle, cache));
        bool born = is_born(s, steps);
        BornBy by = quiet_inputs(steps) ? BornBy::kSteps : BornBy::kJump;
        const auto& stored = reruns == study.self_checks.end() ? kNone : reruns->second;
        std::optional<LocalReplay> replay;
        SelfCheck self_check;
        if (wants_replay(s, steps)) {
          IG_ASSIGN_OR_RETURN(replay, local_replay(*quant, s, steps, *run, stored, cache));
          IG_ASSIGN_OR_RETURN(self_check, self_check_of(s, *run, *oracle, stored, cache));
          // Ill-conditioned: the span amplified what came in; it stays, named so.
          if (replay && self_check.verdict != SelfCheckVerdict::kIllConditioned) {
            born = replay->born;
            by = BornBy::kReplay;
          }
        }
        // A quantized span that the steps rule clears has a meaningless jump: not "how close".
        const bool cleared = !born && quiet_inputs(steps);
        if (largest && !cleared && error_jump(s) > top.jump) {
          top.platform = p.label;
          top.case_label = c.label();
          top.jump = error_jump(s);
          top.span = s;
          top.steps = steps;
        }
        if (!born) continue;
        OracleOrigin o;
        o.platform = p.label;
        o.case_label = c.label();
        o.jump = error_jump(s);
        o.steps = steps;
        o.born_by = by;
        o.replay = std::move(replay);
        o.self_check = std::move(self_check);
        o.span = std::move(s);
        mine.push_back(std::move(o));
      }
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](const OracleOrigin& a, const OracleOrigin& b) { return a.jump > b.jump; });
    for (auto& o : mine) out.push_back(std::move(o));
    if (largest && !top.platform.empty()) largest->push_back(std::move(top));
  }
  return out;
}

Expected<std::map<std::string, double>> values_oracle_errors(const StudyData& study,
                                                             const CaseData& c,
                                                             const std::vector<std::string>& values,
                                                             TensorCache& cache) {
  std::map<std::string, double> out;
  const RepRun* oracle = oracle_run(study, c);
  if (!oracle) return out;
  for (const auto& p : study.platforms) {
    auto it = c.runs.find(p.label);
    const RepRun* run = it == c.runs.end() ? nullptr : it->second.run();
    if (!run) continue;
    IG_ASSIGN_OR_RETURN(double e, values_error(*run, *oracle, values, cache));
    if (e >= 0) out[p.label] = e;
  }
  return out;
}

Expected<std::map<std::string, StepsOff>> values_oracle_steps(
    const StudyData& study, const CaseData& c, const std::vector<std::string>& values,
    TensorCache& cache) {
  std::map<std::string, StepsOff> out;
  const RepRun* oracle = oracle_run(study, c);
  if (!oracle) return out;
  const auto quant = quant_index_of(c);
  for (const auto& p : study.platforms) {
    auto it = c.runs.find(p.label);
    const RepRun* run = it == c.runs.end() ? nullptr : it->second.run();
    if (!run) continue;
    IG_ASSIGN_OR_RETURN(auto s, values_steps(*quant, *run, *oracle, values, cache));
    if (s) out[p.label] = s->steps;
  }
  return out;
}

nlohmann::json error_json(double e) { return json_measure(e); }

nlohmann::json oracle_origin_json(const OracleOrigin& o) {
  nlohmann::json j{{"platform", o.platform},
                   {"case", o.case_label},
                   {"node", o.span.node},
                   {"node_index", o.span.node_index},
                   {"op_type", o.span.op_type},
                   {"covers", o.span.covers},
                   {"fused", o.span.fused},
                   {"inputs", o.span.inputs},
                   {"output", o.span.worst_output},
                   {"input_error", error_json(o.span.input_error)},
                   {"output_error", error_json(o.span.output_error)},
                   {"jump", error_json(o.jump)},
                   {"born_by", born_by_name(o.born_by)}};
  if (o.replay) {
    nlohmann::json r{{"spec", o.replay->spec}, {"local_error", error_json(o.replay->local_error)}};
    if (o.replay->steps) {
      r["local_steps_max"] = steps_json(o.replay->steps->steps_max);
      r["local_steps_share"] = o.replay->steps->steps_share;
    }
    j["replay"] = r;
  }
  if (o.steps) {
    const SpanSteps& st = *o.steps;
    j["step"] = st.output.step;
    j["steps_max"] = steps_json(st.output.steps_max);
    j["steps_share"] = st.output.steps_share;
    j["input_steps_max"] = st.inputs_measured ? steps_json(st.input_steps_max) : nlohmann::json();
    j["input_steps_share"] =
        st.inputs_measured ? nlohmann::json(st.input_steps_share) : nlohmann::json();
  }
  nlohmann::json sc{{"verdict", self_check_verdict_name(o.self_check.verdict)}};
  if (o.self_check.verdict != SelfCheckVerdict::kNotNeeded) {
    sc["reason"] = o.self_check.reason;
    if (!o.self_check.unfused_spec.empty()) sc["unfused_spec"] = o.self_check.unfused_spec;
    if (o.self_check.unfused_error >= 0)
      sc["unfused_error"] = error_json(o.self_check.unfused_error);
    if (o.self_check.local_error >= 0) sc["local_error"] = error_json(o.self_check.local_error);
  }
  j["self_check"] = sc;
  return j;
}

}  // namespace ig

#include "analysis/self_check/plan.h"

#include <algorithm>
#include <set>
#include <utility>

#include "analysis/oracle/error_spans.h"
#include "analysis/oracle/origins.h"
#include "analysis/self_check/verdict.h"

namespace ig {

namespace {

// The oracle spec whose run a case has, as oracle_run picks it.
const PlatformInfo* oracle_of(const StudyData& study, const CaseData& c) {
  for (const auto& o : study.oracles) {
    auto it = c.runs.find(o.label);
    if (it != c.runs.end() && it->second.run()) return &o;
  }
  return nullptr;
}

SelfCheckRequest request_for(const CaseData& c, const PlatformInfo& platform,
                             const PlatformInfo& oracle, const RepRun& run, const ErrorSpan& s) {
  SelfCheckRequest r;
  r.run = run.run_id;
  r.platform = platform.spec;
  r.oracle = oracle.spec;
  r.model_path = c.model_path;
  r.input_set = c.input;
  r.nodes = s.cover_indices;
  r.value = s.worst_output;
  r.value_key = run.values.at(s.worst_output);
  for (const auto& v : s.inputs) r.inputs[v] = run.values.at(v);
  std::set<std::string> produced_anywhere;
  for (const auto& n : c.nodes)
    for (const auto& o : n.outputs) produced_anywhere.insert(o);
  const std::set<int64_t> members(s.cover_indices.begin(), s.cover_indices.end());
  std::set<std::string> outside;
  for (const auto& n : c.nodes) {
    if (!members.count(n.index)) continue;
    for (const auto& o : n.outputs)
      if (!o.empty()) r.produced.push_back(o);
    for (const auto& in : n.inputs)
      if (!in.empty() && !produced_anywhere.count(in)) outside.insert(in);
  }
  r.graph_inputs.assign(outside.begin(), outside.end());
  return r;
}

}  // namespace

Expected<std::vector<SelfCheckRequest>> self_check_requests(const StudyData& study,
                                                            TensorCache& cache,
                                                            const std::string& host) {
  std::vector<SelfCheckRequest> out;
  for (const auto& c : study.cases) {
    const PlatformInfo* oracle = oracle_of(study, c);
    if (!oracle || (!host.empty() && oracle->host != host)) continue;
    const RepRun& oracle_run = *c.runs.at(oracle->label).run();
    for (const auto& p : study.platforms) {
      if (!host.empty() && p.host != host) continue;
      auto it = c.runs.find(p.label);
      const RepRun* run = it == c.runs.end() ? nullptr : it->second.run();
      if (!run) continue;
      auto found = error_spans(c, *run, oracle_run, cache);
      // A run added to a store that dropped the oracle's inner tensors has no per-layer errors
      // to re-check (the study notes that); the other runs still get their self-checks.
      if (!found.ok() && tensor_not_kept(found.status())) continue;
      IG_ASSIGN_OR_RETURN(auto spans, std::move(found));
      // Local replays (origins.h): the spans the rules leave undecided, largest jump first.
      const auto quant = quant_index_of(c);
      std::vector<std::pair<bool, ErrorSpan>> replays;  // born by the rules, span
      for (const auto& s : spans) {
        if (needs_self_check(s)) continue;  // its oracle re-run comes with the self-check
        IG_ASSIGN_OR_RETURN(auto steps, span_steps(*quant, s, *run, oracle_run, cache));
        if (wants_replay(s, steps)) replays.emplace_back(is_born(s, steps), s);
      }
      std::stable_sort(replays.begin(), replays.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first : error_jump(a.second) > error_jump(b.second);
      });
      if (replays.size() > kReplaysPerRun) replays.resize(kReplaysPerRun);
      std::erase_if(spans, [](const ErrorSpan& s) { return !needs_self_check(s); });
      std::stable_sort(spans.begin(), spans.end(), [](const ErrorSpan& a, const ErrorSpan& b) {
        return a.output_error > b.output_error;
      });
      if (spans.size() > kSelfChecksPerRun) spans.resize(kSelfChecksPerRun);
      for (const auto& s : spans) out.push_back(request_for(c, p, *oracle, *run, s));
      for (const auto& [born, s] : replays) {
        out.push_back(request_for(c, p, *oracle, *run, s));
        out.back().oracle_only = true;
      }
    }
  }
  return out;
}

}  // namespace ig

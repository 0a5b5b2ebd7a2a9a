#include "analysis/explain/explain.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/compare/compare.h"
#include "backends/single_node.h"
#include "platform/knobs.h"
#include "platform/registry.h"
#include "platform/spec.h"
#include "tensor/convert.h"
#include "tensor/hash.h"

namespace ig {

namespace {

// The knobs without those at their default (left out of specs). The emulator (ref) runs in
// this process: its knob table is registered here.
Knobs canonical(const Knobs& k) {
  Knobs out;
  for (const auto& [key, value] : k) {
    const Knob* knob = find_knob(registered_knobs(), "ref", key);
    if (!knob || knob->default_value != value) out[key] = value;
  }
  return out;
}

ExplainTrial run_trial(const ExplainProblem& p, const Knobs& knobs) {
  ExplainTrial t;
  t.emulator = ref_spec(knobs);
  auto spec = parse_platform_spec(t.emulator);
  if (!spec.ok()) {
    t.error = spec.status().message();
    return t;
  }
  auto backend = make_backend(*spec);
  if (!backend.ok()) {
    t.error = backend.status().message();
    return t;
  }
  std::vector<Value> by_position;
  if (p.whole_model) {
    std::map<std::string, Tensor> feeds;
    for (const auto& [name, v] : p.inputs) feeds[name] = v.tensor;
    auto outs = (*backend)->run(*p.model, feeds, nullptr);
    if (!outs.ok()) {
      t.error = outs.status().message();
      return t;
    }
    by_position = std::move(*outs);
  } else {
    auto outs = run_single_node(**backend, *p.model, *p.node, p.inputs);
    if (!outs.ok()) {
      t.error = outs.status().message();
      return t;
    }
    by_position = outputs_by_position(*p.node, std::move(*outs));
  }
  if (p.output_index >= by_position.size() || !by_position[p.output_index].is_tensor()) {
    t.error = "the emulator produced no tensor for this output";
    return t;
  }
  Tensor y = std::move(by_position[p.output_index].tensor);
  // dtype=fp64 computes wider: its output, rounded once to the platform's type, is the candidate.
  if (y.dtype() != p.target.dtype() && dtype_info(y.dtype()).is_float &&
      dtype_info(p.target.dtype()).is_float) {
    y = convert_float_tensor(y, p.target.dtype());
  }
  const Comparison c = compare_tensors(y, p.target);
  if (!c.comparable) {
    t.error = c.why_not;
    return t;
  }
  t.exact = c.identical;
  t.hash = tensor_hash(y);
  t.remaining_precision = c.remaining_precision;
  t.differing = c.differing;
  return t;
}

bool better(const ExplainTrial& a, const ExplainTrial& b) {
  if (a.error.empty() != b.error.empty()) return a.error.empty();
  if (a.exact != b.exact) return a.exact;
  if (a.remaining_precision != b.remaining_precision) {
    return a.remaining_precision > b.remaining_precision;
  }
  return a.differing < b.differing;
}

// Every combination of the combinable knobs, ranked by how well each of its values did alone.
std::vector<Knobs> ranked_combinations(const NodeTraits& traits,
                                       const std::map<Knobs, ExplainTrial>& single) {
  // A value that alone left the reference's bits unchanged does nothing for this node (an order
  // over sums shorter than its lanes, FMA where nothing multiplies): combining it only repeats
  // the reference, so it is left out; its knob keeps its default.
  auto reference = single.find(Knobs{});
  auto has_effect = [&](const std::string& key, const std::string& value) {
    const Knobs alone = canonical({{key, value}});
    if (alone.empty()) return true;  // the default itself
    auto it = single.find(alone);
    if (it == single.end() || reference == single.end()) return true;
    return !it->second.error.empty() || it->second.hash != reference->second.hash;
  };
  const auto space = combinable_knobs(traits);
  std::vector<Knobs> combos = {{}};
  for (const auto& [key, values] : space) {
    std::vector<Knobs> next;
    for (const auto& c : combos) {
      for (const auto& v : values) {
        if (!has_effect(key, v)) continue;
        Knobs k = c;
        k[key] = v;
        next.push_back(k);
      }
    }
    combos = std::move(next);
  }
  // Score of one value: its single-knob trial's remaining precision and agreeing elements (the
  // default value scores as the reference did).
  auto score_of = [&](const std::string& key, const std::string& value) -> double {
    Knobs alone = canonical({{key, value}});
    auto it = single.find(alone);
    if (it == single.end() || !it->second.error.empty()) return -1e9;
    return it->second.remaining_precision - 1e-9 * static_cast<double>(it->second.differing);
  };
  std::vector<std::pair<double, Knobs>> scored;
  for (const auto& c : combos) {
    double s = 0;
    for (const auto& [key, value] : c) s += score_of(key, value);
    scored.emplace_back(s, canonical(c));
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Knobs> out;
  for (auto& [s, k] : scored) out.push_back(std::move(k));
  return out;
}

}  // namespace

Expected<ExplainResult> explain_node(const ExplainProblem& p, size_t max_trials,
                                     const ExplainProgress& progress) {
  if (!p.model || !p.node) return invalid_argument("explain: no node given");
  if (!dtype_info(p.target.dtype()).is_float && !is_integer(p.target.dtype())) {
    return unsupported("{}: its output is {}, not a number: nothing to explain bit by bit",
                       p.node->label(), dtype_name(p.target.dtype()));
  }
  NodeTraits traits = node_traits(p.node->op_type);
  // A fused group (a QDQ convolution: DequantizeLinear x3, Conv, Relu, QuantizeLinear) varies
  // with what any of its nodes lets vary.
  if (p.whole_model)
    for (const auto& n : p.model->graph.nodes) traits |= node_traits(n.op_type);
  for (const auto& [name, v] : p.inputs) {
    if (!v.is_tensor() || !dtype_info(v.tensor.dtype()).is_float) continue;
    for (int64_t i = 0; i < v.tensor.numel(); ++i) {
      const double x = v.tensor.as_double(i);
      if (std::isnan(x)) traits.has_nan = true;
      if (x != 0 && std::fpclassify(static_cast<float>(x)) == FP_SUBNORMAL) {
        traits.has_denormal = true;
      }
    }
  }
  ExplainResult result;
  std::map<Knobs, ExplainTrial> done;
  const ExplainTrial* best = nullptr;
  auto attempt = [&](const Knobs& knobs) -> bool {  // true: stop (exact, or out of trials)
    const Knobs k = canonical(knobs);
    if (done.count(k)) return false;
    if (result.tried.size() >= max_trials) return true;
    ExplainTrial t = run_trial(p, k);
    done[k] = t;
    result.tried.push_back(t);
    if (progress) progress(result.tried.size(), t);
    if (!best || better(t, *best)) {
      best = &done[k];
      result.knobs = k;
    }
    return t.exact;
  };
  // The reference first: how far it misses tells whether reduced-precision units can matter.
  bool stop = attempt(Knobs{});
  if (!stop) {
    const ExplainTrial& reference = done.at(Knobs{});
    traits.reduced_precision = p.target.dtype() != DType::kFloat32 || !reference.error.empty() ||
                               reference.remaining_precision < 16;
  }
  for (const auto& k : single_knob_candidates(traits)) {
    if (stop || (stop = attempt(k))) break;
  }
  if (!stop) {
    for (const auto& k : ranked_combinations(traits, done)) {
      if ((stop = attempt(k))) break;
    }
  }
  if (!best || !best->error.empty()) {
    return unsupported("{}: the emulator could not run this node in any configuration ({})",
                       p.node->label(), best ? best->error : "none tried");
  }
  result.exact = best->exact;
  result.emulator = best->emulator;
  result.remaining_precision = best->remaining_precision;
  result.differing = best->differing;
  result.mantissa_bits = compare_tensors(p.target, p.target).mantissa_bits;
  // The emulator (ref) runs in this process: its knob table is registered here.
  result.causes = option_causes(registered_knobs(), "ref", result.knobs);
  return result;
}

}  // namespace ig

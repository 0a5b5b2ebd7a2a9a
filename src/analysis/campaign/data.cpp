#include <algorithm>
#include <cmath>
#include <functional>

#include "analysis/campaign/data.h"
#include "tensor/as_doubles.h"
#include "tensor/convert.h"

namespace ig::campaign {

Expected<Data> load(const Store& store, const std::string& oracle) {
  Data d;
  IG_ASSIGN_OR_RETURN(auto platforms, store.platforms());
  for (const auto& p : platforms) {
    if (p.oracle) {
      if (d.oracle.empty()) d.oracle = p.spec;
    } else if (std::find(d.platforms.begin(), d.platforms.end(), p.spec) == d.platforms.end()) {
      d.platforms.push_back(p.spec);
    }
  }
  if (auto m = store.meta("oracle")) d.oracle = *m;
  if (!oracle.empty()) d.oracle = oracle;
  IG_ASSIGN_OR_RETURN(auto inputs, store.inputs());
  std::map<std::string, nlohmann::json> recipe;
  for (const auto& in : inputs) recipe[in.hash] = in.recipe;
  IG_ASSIGN_OR_RETURN(auto runs, store.runs());
  IG_ASSIGN_OR_RETURN(auto rejected, store.all_rejections());
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const auto& r : runs) {
    const auto key = std::make_pair(r.key.model, r.key.input);
    auto it = index.find(key);
    if (it == index.end()) {
      Case c;
      c.model = r.key.model;
      c.input = r.key.input;
      IG_ASSIGN_OR_RETURN(c.nodes, store.nodes(r.key.model));
      c.input_recipe = recipe[r.key.input];
      it = index.emplace(key, d.cases.size()).first;
      d.cases.push_back(std::move(c));
    }
    Case& c = d.cases[it->second];
    // Repetitions and other hosts of a merged store: the first stored run stands for the platform.
    if (c.runs.count(r.key.platform)) continue;
    Run run{r.id, r.verdict, r.reason, {}, {}, {}, false, false, false};
    if (auto it = rejected.find(r.id); it != rejected.end()) run.rejections = std::move(it->second);
    IG_ASSIGN_OR_RETURN(auto outs, store.outputs(r.id));
    for (const auto& o : outs) {
      run.values[o.value] = o.tensor;
      if (o.is_output) {
        run.outputs.push_back(o.value);
        run.nan |= o.nan_count > 0;
        run.inf |= o.inf_count > 0;
      } else {
        run.has_layers = true;
      }
    }
    c.runs.emplace(r.key.platform, std::move(run));
  }
  return d;
}

const Run* ran_ok(const Case& c, const std::string& platform) {
  auto it = c.runs.find(platform);
  return it != c.runs.end() && it->second.verdict == Verdict::kOk ? &it->second : nullptr;
}

bool within_oracle_tolerance(const Tensor& run, Tensor oracle, double rtol, double atol) {
  if (is_float(run.dtype())) oracle = convert_float_tensor(oracle, run.dtype());
  return within_tolerance(run, oracle, rtol, atol);
}

bool within_tolerance(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (a.shape() != b.shape()) return false;
  const std::vector<double> xs = as_doubles(a), ys = as_doubles(b);
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i], y = ys[i];
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) return false;
    } else if (std::isinf(x) || std::isinf(y)) {
      if (x != y) return false;
    } else if (std::fabs(x - y) > atol + rtol * std::fabs(y)) {
      return false;
    }
  }
  return true;
}

std::string origin_op(const Case& c, const ValueDiff& differs) { return origin_of(c, differs).op; }

Origin origin_of(const Case& c, const ValueDiff& differs) {
  std::map<std::string, const StoredNode*> producer;
  for (const auto& n : c.nodes)
    for (const auto& o : n.outputs) producer[o] = &n;
  // Whether the values reaching `v` agree; a value a fusing platform never materialised belongs
  // to the fused group, which then reaches back to its producer's inputs.
  std::function<bool(const std::string&, std::vector<const StoredNode*>&, int)> agrees =
      [&](const std::string& v, std::vector<const StoredNode*>& group, int depth) {
        auto p = producer.find(v);
        if (v.empty() || p == producer.end()) return true;  // graph inputs, weights: the same
        const auto d = differs(v);
        if (d.has_value()) return !*d;
        if (depth > 16) return false;
        group.insert(group.begin(), p->second);
        for (const auto& in : p->second->inputs)
          if (!agrees(in, group, depth + 1)) return false;
        return true;
      };
  for (const auto& n : c.nodes) {
    bool out_differs = false;
    for (const auto& v : n.outputs)
      if (!v.empty() && differs(v).value_or(false)) out_differs = true;
    if (!out_differs) continue;
    std::vector<const StoredNode*> group;
    bool inputs_agree = true;
    for (const auto& v : n.inputs) inputs_agree = inputs_agree && agrees(v, group, 0);
    if (!inputs_agree) continue;
    // A fused group reads "Conv+Relu": the divergence is born somewhere inside it.
    std::string op;
    std::set<const StoredNode*> seen;
    for (const auto* g : group)
      if (seen.insert(g).second) op += g->op_type + "+";
    return {op + n.op_type, &n};
  }
  // Without per-layer values: a single-op variant (Cast and Identity wrappers aside) still says.
  const StoredNode* only = nullptr;
  for (const auto& n : c.nodes) {
    if (n.op_type == "Cast" || n.op_type == "Identity") continue;
    if (only) return {};
    only = &n;
  }
  return only ? Origin{only->op_type, only} : Origin{};
}

const StoredNode* exact_input_elementwise(const Case& c) {
  const StoredNode* only = origin_of(c, [](auto&) { return false; }).node;
  if (!only || !relative_precision_op(only->op_type)) return nullptr;
  for (const auto& n : c.nodes)
    for (const auto& o : n.outputs)
      for (const auto& in : only->inputs)
        if (!o.empty() && o == in) return nullptr;  // computed, not read: a Cast's rounding
  return only;
}

Differ::Differ(const Store& store, const CampaignAnalysisOptions& opt, bool exact)
    : cache_([&store](const TensorKey& k) { return store.tensor(k); }), opt_(opt), exact_(exact) {}

Expected<bool> Differ::differs(const Run& a, const Run& b, const std::string& value) {
  const TensorKey& ka = a.values.at(value);
  const TensorKey& kb = b.values.at(value);
  if (exact_ || ka == kb) return !(ka == kb);
  IG_ASSIGN_OR_RETURN(Tensor ta, cache_.get(ka));
  IG_ASSIGN_OR_RETURN(Tensor tb, cache_.get(kb));
  return !within_oracle_tolerance(ta, std::move(tb), opt_.rtol, opt_.atol);
}

Expected<bool> Differ::outputs_differ(const Run& a, const Run& b) {
  for (const auto& v : a.outputs) {
    if (!b.values.count(v)) return true;
    IG_ASSIGN_OR_RETURN(bool d, differs(a, b, v));
    if (d) return true;
  }
  return false;
}

std::string Differ::origin(const Case& c, const Run& a, const Run& b) {
  return origin_at(c, a, b).op;
}

Origin Differ::origin_at(const Case& c, const Run& a, const Run& b) {
  if (!a.has_layers || !b.has_layers) return origin_of(c, [](auto&) { return false; });
  return origin_of(c, [&](const std::string& v) -> std::optional<bool> {
    if (!a.values.count(v) || !b.values.count(v)) return std::nullopt;
    auto d = differs(a, b, v);
    return d.ok() ? std::optional<bool>(*d) : std::nullopt;
  });
}

Expected<ExceptionalCounts> Differ::against_oracle(const Run& r, const Run& oracle) {
  ExceptionalCounts counts;
  for (const auto& v : r.outputs) {
    if (!oracle.values.count(v)) {
      ++counts[Exceptional::kDiffers];
      continue;
    }
    IG_ASSIGN_OR_RETURN(Tensor t, cache_.get(r.values.at(v)));
    IG_ASSIGN_OR_RETURN(Tensor o, cache_.get(oracle.values.at(v)));
    classify_against_oracle(t, o, opt_.rtol, opt_.atol, counts);
  }
  return counts;
}

Expected<RelativeLoss> Differ::relative_loss_against(const Run& r, const Run& oracle) {
  RelativeLoss worst;
  for (const auto& v : r.outputs) {
    if (!oracle.values.count(v)) continue;
    IG_ASSIGN_OR_RETURN(Tensor t, cache_.get(r.values.at(v)));
    IG_ASSIGN_OR_RETURN(Tensor o, cache_.get(oracle.values.at(v)));
    RelativeLoss loss = relative_loss(t, o, opt_.rtol);
    if (loss.lost > 0 && loss.worst_relative > worst.worst_relative) worst = loss;
  }
  return worst;
}

}  // namespace ig::campaign

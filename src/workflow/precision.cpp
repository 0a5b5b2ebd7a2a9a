#include "workflow/precision.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "analysis/precision/layers.h"
#include "analysis/precision/quant_views.h"
#include "model/onnx_model.h"
#include "synth/convert_precision.h"
#include "synth/mutate.h"
#include "synth/quantize_model.h"
#include "workflow/parent_pair.h"

namespace ig {

namespace {

// Whether the outputs meet the bound, and the worst figure in words.
TrialResult check_bound(const PrecisionBound& b, const std::vector<OutputCheck>& outs) {
  TrialResult r{!outs.empty(), ""};
  double worst_rel = 0, worst_sqnr = std::numeric_limits<double>::infinity();
  bool top1 = true;
  int64_t nonfinite = 0;
  for (const auto& o : outs) {
    worst_rel = std::max(worst_rel, o.v.rel_error);
    worst_sqnr = std::min(worst_sqnr, o.v.sqnr_db);
    top1 = top1 && o.v.top1 == 1;
    nonfinite += o.v.nonfinite;
  }
  switch (b.kind) {
    case PrecisionBound::Kind::kRtol:
      r.meets = r.meets && worst_rel <= b.value;
      r.how = fmt::format("rel error {:.3g}", worst_rel);
      break;
    case PrecisionBound::Kind::kTop1:
      r.meets = r.meets && top1;
      r.how = top1 ? "top-1 agrees" : "top-1 differs";
      break;
    case PrecisionBound::Kind::kSqnr:
      r.meets = r.meets && worst_sqnr >= b.value;
      r.how = fmt::format("SQNR {:.1f} dB", worst_sqnr);
      break;
    case PrecisionBound::Kind::kNone:
      r.how = fmt::format("rel error {:.3g}, SQNR {:.1f} dB", worst_rel, worst_sqnr);
      break;
  }
  r.meets = r.meets && nonfinite == 0;
  if (nonfinite) r.how += fmt::format(", {} Inf/NaN", nonfinite);
  return r;
}

std::vector<OutputCheck> check_outputs(const onnx::GraphProto& g,
                                       const std::map<std::string, Tensor>& derived,
                                       const std::map<std::string, Tensor>& parent) {
  std::vector<OutputCheck> out;
  for (const auto& o : g.output()) {
    auto d = derived.find(o.name());
    auto p = parent.find(o.name());
    if (d == derived.end() || p == parent.end()) continue;
    if (auto v = measure_vs_parent(d->second, p->second, true)) out.push_back({o.name(), *v});
  }
  return out;
}

// Rebuilds the derived model from the parent with more nodes left in float.
class Deriver {
 public:
  static Expected<Deriver> from(const ParentPair& pair) {
    auto lineage = lineage_from_model(pair.derived);
    if (!lineage.ok())
      return invalid_argument(
          "{}: no lineage ({}): the keep-in-float search rebuilds the model from its parent, so "
          "it needs one made by infergap quantize or infergap convert",
          pair.derived_path, lineage.status().message());
    const std::string hash = content_hash(pair.parent);
    if (lineage->parent_hash != hash)
      return invalid_argument(
          "{} is not the parent recorded in {}'s lineage (parent {}, the file's content is {})",
          pair.parent_path, pair.derived_path, lineage->parent_hash, hash);
    if (lineage->mutations.size() != 1 ||
        (lineage->mutations[0].kind != "quantize" && lineage->mutations[0].kind != "convert"))
      return invalid_argument("{}: its lineage is not one quantize or convert step",
                              pair.derived_path);
    Deriver d;
    d.pair_ = &pair;
    d.step_ = lineage->mutations[0];
    return d;
  }

  const std::string& kind() const { return step_.kind; }

  // The model with `kept` (node names) left in float; `touched` gets the nodes it quantized or
  // converted.
  Expected<onnx::ModelProto> derive(const std::vector<std::string>& kept,
                                    std::vector<std::string>* touched = nullptr) {
    const std::string dir = std::filesystem::path(pair_->parent_path).parent_path().string();
    if (step_.kind == "quantize") {
      IG_ASSIGN_OR_RETURN(QuantizeOptions o, quantize_options_from(step_.params));
      o.block.insert(o.block.end(), kept.begin(), kept.end());
      o.label = pair_->parent_path;
      o.base_dir = dir;
      o.range_cache = &ranges_;
      IG_ASSIGN_OR_RETURN(QuantizeResult r, quantize_model(pair_->parent, o));
      if (touched) *touched = r.quantized_nodes;
      return std::move(r.model);
    }
    IG_ASSIGN_OR_RETURN(ConvertOptions o, convert_options_from(step_.params));
    o.block.insert(o.block.end(), kept.begin(), kept.end());
    o.label = pair_->parent_path;
    o.base_dir = dir;
    IG_ASSIGN_OR_RETURN(ConvertResult r, convert_precision(pair_->parent, o));
    if (touched) *touched = r.converted_nodes;
    return std::move(r.model);
  }

 private:
  const ParentPair* pair_ = nullptr;
  Mutation step_;
  std::map<std::string, TensorRange> ranges_;
};

// Candidate nodes, the layers that make the most error on their own first.
std::vector<std::string> rank_candidates(const std::vector<LayerError>& layers,
                                         const std::vector<std::string>& touched) {
  const std::set<std::string> can(touched.begin(), touched.end());
  std::vector<const LayerError*> measured;
  for (const auto& l : layers)
    if (l.born) measured.push_back(&l);
  auto key = [](const LayerError* l) {
    const double s = l->born->sqnr_db;
    return std::isnan(s) ? -std::numeric_limits<double>::infinity() : s;
  };
  std::stable_sort(measured.begin(), measured.end(),
                   [&](const LayerError* a, const LayerError* b) { return key(a) < key(b); });
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto* l : measured)  // on a fusing platform a layer is a group: all of its nodes
    for (const auto& n : l->members)
      if (can.count(n) && seen.insert(n).second) out.push_back(n);
  for (const auto& n : touched)
    if (seen.insert(n).second) out.push_back(n);
  return out;
}

class PrecisionRun {
 public:
  PrecisionRun(const PrecisionPlan& plan, ParentPair& pair)
      : plan_(plan), pair_(pair), pool_(WorkerPoolOptions{}), work_("precision") {}

  Expected<PrecisionOutcome> run() {
    o_.platform = plan_.platform;
    if (Status st = pool_.start(plan_.platform); !st.ok()) return st;
    say("running the parent on " + plan_.platform + ", every layer traced");
    IG_ASSIGN_OR_RETURN(parent_, values(plan_.parent, pair_.parent_feeds, true));
    say("running the derived model on " + plan_.platform + ", every layer traced");
    IG_ASSIGN_OR_RETURN(auto derived, values(plan_.derived, pair_.derived_feeds, true));
    IG_RETURN_IF_ERROR(measure_layers(derived));
    o_.outputs = check_outputs(pair_.derived.graph(), derived, parent_);
    o_.meets = check_bound(plan_.bound, o_.outputs).meets;
    if (plan_.bound.kind == PrecisionBound::Kind::kNone) return o_;
    IG_RETURN_IF_ERROR(search());
    return o_;
  }

 private:
  Expected<std::map<std::string, Tensor>> values(const std::string& path,
                                                 const std::map<std::string, Tensor>& feeds,
                                                 bool all) {
    ++o_.runs;
    return run_values(pool_, plan_.platform, path, feeds, all, plan_.timeout_seconds);
  }

  // The derived model's value at a layer: after its output's QuantizeLinear when it has one.
  static Tensor measured_at(const PrecisionLayer& l, const std::map<std::string, Tensor>& values,
                            const std::string& name) {
    auto q = values.find(name);
    if (q == values.end()) return {};
    return l.view && name != l.value ? dequantize_view(q->second, *l.view) : q->second;
  }

  Status measure_layers(std::map<std::string, Tensor> derived) {
    const auto views = quantized_views(pair_.derived.graph());
    // Integer platforms trace a fused group as its QuantizeLinear output alone.
    for (const auto& [x, view] : views) {
      auto q = derived.find(view.q_value);
      if (!derived.count(x) && q != derived.end() && q->second.defined())
        derived[x] = dequantize_view(q->second, view);
    }
    std::set<std::string> shared;
    for (const auto& [name, t] : derived)  // shapes and indices are not layers to measure
      if (t.defined() && is_float(t.dtype()) && parent_.count(name)) shared.insert(name);
    const auto layers = match_layers(pair_.derived.graph(), shared, views);
    std::map<std::string, Tensor> born;
    if (!layers.empty()) {
      say(fmt::format("running {} layers alone, fed the parent's values", layers.size()));
      IG_ASSIGN_OR_RETURN(auto model, born_here_model(pair_.derived, layers, derived));
      const std::string path = work_.file("born_here.onnx");
      IG_RETURN_IF_ERROR(save_model_proto(model, path));
      IG_ASSIGN_OR_RETURN(auto feeds, born_here_feeds(layers, parent_, derived));
      IG_ASSIGN_OR_RETURN(born, values(path, feeds, false));
    }
    for (size_t k = 0; k < layers.size(); ++k) {
      const auto& l = layers[k];
      LayerError e{l.value, l.node, l.op_type, l.members, {}, {}};
      const Tensor& p = parent_.at(l.value);
      const std::string traced =
          l.view && derived.count(l.view->q_value) ? l.view->q_value : l.value;
      e.total = measure_vs_parent(measured_at(l, derived, traced), p, false);
      const Tensor b = measured_at(l, born, born_output_name(l, k));
      if (b.defined()) e.born = measure_vs_parent(b, p, false);
      o_.layers.push_back(std::move(e));
    }
    return Status::Ok();
  }

  Status search() {
    IG_ASSIGN_OR_RETURN(Deriver deriver, Deriver::from(pair_));
    o_.derivation = deriver.kind();
    std::vector<std::string> touched;
    IG_RETURN_IF_ERROR(deriver.derive({}, &touched).status());
    const auto ranked = rank_candidates(o_.layers, touched);
    auto try_kept = [&](const std::vector<std::string>& kept) -> Expected<TrialResult> {
      if (kept.empty()) return check_bound(plan_.bound, o_.outputs);
      // Everything in float is the parent itself (quantize and convert refuse an empty plan).
      if (kept.size() == ranked.size())
        return check_bound(plan_.bound, check_outputs(pair_.parent.graph(), parent_, parent_));
      say(fmt::format("trying {} layer(s) in float", kept.size()));
      IG_ASSIGN_OR_RETURN(auto model, deriver.derive(kept));
      const std::string path = work_.file("candidate.onnx");
      IG_RETURN_IF_ERROR(save_model_proto(model, path));
      IG_ASSIGN_OR_RETURN(auto v, values(path, pair_.derived_feeds, false));
      return check_bound(plan_.bound, check_outputs(model.graph(), v, parent_));
    };
    IG_ASSIGN_OR_RETURN(o_.search, search_keep_in_float(ranked, try_kept));
    if (!o_.search->found || plan_.out_model.empty()) return Status::Ok();
    IG_ASSIGN_OR_RETURN(auto fixed, deriver.derive(o_.search->kept));
    IG_RETURN_IF_ERROR(save_model_proto(fixed, plan_.out_model));
    o_.fixed_path = plan_.out_model;
    say("checking the fixed model " + plan_.out_model);
    IG_ASSIGN_OR_RETURN(auto v, values(plan_.out_model, pair_.derived_feeds, false));
    o_.fixed_outputs = check_outputs(fixed.graph(), v, parent_);
    return Status::Ok();
  }

  void say(const std::string& s) const {
    if (plan_.progress) plan_.progress(s);
  }

  const PrecisionPlan& plan_;
  ParentPair& pair_;
  WorkerPool pool_;
  WorkFolder work_;
  PrecisionOutcome o_;
  std::map<std::string, Tensor> parent_;
};

}  // namespace

std::string describe_bound(const PrecisionBound& b) {
  switch (b.kind) {
    case PrecisionBound::Kind::kRtol:
      return fmt::format("relative error <= {:g}", b.value);
    case PrecisionBound::Kind::kTop1:
      return "top-1 agrees";
    case PrecisionBound::Kind::kSqnr:
      return fmt::format("SQNR >= {:g} dB", b.value);
    case PrecisionBound::Kind::kNone:
      break;
  }
  return "none";
}

double LayerError::born_share() const {
  if (!total || !born) return std::nan("");
  if (std::isinf(born->sqnr_db) && born->sqnr_db > 0) return 0;
  if (std::isinf(total->sqnr_db) && total->sqnr_db > 0) return std::nan("");
  return std::pow(10.0, (total->sqnr_db - born->sqnr_db) / 10);
}

Expected<PrecisionOutcome> run_precision(const PrecisionPlan& plan) {
  IG_ASSIGN_OR_RETURN(ParentPair pair, load_parent_pair(plan.derived, plan.parent, plan.inputs));
  PrecisionRun run(plan, pair);
  return run.run();
}

}  // namespace ig

#include "workflow/attribute.h"

#include "analysis/explain/problem.h"
#include "platform/spec.h"

namespace ig {

namespace {

// Between two libraries: each side's own order, as explain finds it; the split's causes are the
// causes only one side has. Ok(empty) when explain cannot say (no exact match on both sides).
class ExplainConfirm {
 public:
  ExplainConfirm(const Store& store, const AttributeOptions& options)
      : store_(store), options_(options) {}
  // Why explain could not run somewhere: the study kept no inner tensors ("" if it could).
  const std::string& not_kept() const { return not_kept_; }

  std::vector<std::string> causes(const CaseData& c, const SplitAttribution& s) {
    auto a = side(c, s.a, s.node);
    auto b = side(c, s.b, s.node);
    if (!a || !b) return {};
    std::vector<std::string> out;
    for (const auto* from : {a, b}) {
      const auto* other = from == a ? b : a;
      for (const auto& x : from->causes) {
        if (std::find(other->causes.begin(), other->causes.end(), x) == other->causes.end() &&
            std::find(out.begin(), out.end(), x) == out.end()) {
          out.push_back(x);
        }
      }
    }
    return out;
  }

 private:
  const ExplainResult* side(const CaseData& c, const std::string& platform,
                            const std::string& node) {
    const auto key = c.label() + "|" + platform + "|" + node;
    auto it = done_.find(key);
    if (it != done_.end()) return it->second.exact ? &it->second : nullptr;
    ExplainResult& r = done_[key];
    // The emulator is its own explanation: its knobs.
    auto spec = parse_platform_spec(platform.substr(0, platform.find('@')));
    if (spec.ok() && spec->backend == "ref") {
      r.exact = true;
      r.causes = option_causes(options_.knobs, "ref", spec->options);
      return &r;
    }
    auto pc = c.runs.find(platform);
    if (pc == c.runs.end() || !pc->second.run()) return nullptr;
    Model model;
    std::string value;
    auto p = explain_problem(store_, c, *pc->second.run(), platform, node, model, value);
    if (!p.ok() && tensor_not_kept(p.status())) {
      not_kept_ = p.status().message();
      return nullptr;
    }
    if (!p.ok() || p->target.numel() > options_.max_elements) return nullptr;
    if (options_.explaining) options_.explaining(platform, node);
    auto e = explain_node(*p, options_.max_trials);
    if (!e.ok()) return nullptr;
    r = std::move(*e);
    return r.exact ? &r : nullptr;
  }

  const Store& store_;
  const AttributeOptions& options_;
  std::map<std::string, ExplainResult> done_;
  std::string not_kept_;
};

}  // namespace

Expected<AttributeOutcome> attribute_study(const Store& store, const AttributeOptions& options) {
  IG_ASSIGN_OR_RETURN(auto study, load_study(store, options.model));
  TensorCache cache(study);
  const auto labels = study.labels();
  ExplainConfirm confirm(store, options);
  AttributeOutcome out;
  out.cases = study.cases.size();
  for (const auto& c : study.cases) {
    IG_ASSIGN_OR_RETURN(auto splits, set_origins(c, labels, cache));
    for (auto& a : attribute_splits(options.knobs, splits)) {
      if (options.explain && a.causes == std::vector<std::string>{"library"}) {
        auto refined = confirm.causes(c, a);
        if (!refined.empty()) {
          a.causes = std::move(refined);
          a.source = "explain";
        }
      }
      out.splits.push_back(std::move(a));
    }
  }
  out.not_kept = confirm.not_kept();
  return out;
}

}  // namespace ig

// infergap attribute --store DB [--model M] [--no-explain] [--max-trials N] [--json]
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "analysis/attribute.h"
#include "analysis/explain_problem.h"
#include "cli/commands.h"
#include "cli/study_json.h"
#include "platform/spec.h"

namespace ig::cli {

namespace {

struct AttributeArgs {
  std::string store, model;
  bool json = false, no_explain = false;
  size_t max_trials = 120;
  int64_t max_elements = 1 << 20;
};

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// Between two libraries: each side's own order, as explain finds it; the split's causes are the
// causes only one side has. Ok(empty) when explain cannot say (no exact match on both sides).
class ExplainConfirm {
 public:
  ExplainConfirm(const Store& store, const AttributeArgs& args) : store_(store), args_(args) {}
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
      r.causes = causes_of(spec->options);
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
    if (!p.ok() || p->target.numel() > args_.max_elements) return nullptr;
    if (::isatty(2)) {
      std::fprintf(stderr, "\rattribute: explaining %s at %s\033[K", platform.c_str(),
                   node.c_str());
    }
    auto e = explain_node(*p, args_.max_trials);
    if (!e.ok()) return nullptr;
    r = std::move(*e);
    return r.exact ? &r : nullptr;
  }

  const Store& store_;
  const AttributeArgs& args_;
  std::map<std::string, ExplainResult> done_;
  std::string not_kept_;
};

Status run_attribute(const AttributeArgs& args) {
  IG_ASSIGN_OR_RETURN(auto store, open_existing_store(args.store));
  IG_ASSIGN_OR_RETURN(auto study, load_study(*store, args.model));
  TensorCache cache(study);
  const auto labels = study.labels();
  ExplainConfirm confirm(*store, args);
  std::vector<SplitAttribution> all;
  for (const auto& c : study.cases) {
    IG_ASSIGN_OR_RETURN(auto splits, set_origins(c, labels, cache));
    for (auto& a : attribute_splits(splits)) {
      if (!args.no_explain && a.causes == std::vector<std::string>{"library"}) {
        auto refined = confirm.causes(c, a);
        if (!refined.empty()) {
          a.causes = std::move(refined);
          a.source = "explain";
        }
      }
      all.push_back(std::move(a));
    }
  }
  if (::isatty(2)) std::fprintf(stderr, "\r\033[K");
  // Splits between libraries then keep the coarse cause `library`: say why they were not refined.
  if (!confirm.not_kept().empty())
    std::fprintf(
        stderr, "infergap attribute: note: explain could not refine splits between libraries: %s\n",
        confirm.not_kept().c_str());
  const AttributionTable table = tabulate(all);
  if (args.json) {
    nlohmann::json splits = nlohmann::json::array();
    for (const auto& a : all) {
      splits.push_back({{"case", a.case_label},
                        {"node_index", a.node_index},
                        {"node", a.node},
                        {"op_type", a.op_type},
                        {"side_a", a.side_a},
                        {"side_b", a.side_b},
                        {"a", a.a},
                        {"b", a.b},
                        {"causes", a.causes},
                        {"source", a.source}});
    }
    std::printf("%s\n", nlohmann::json{{"splits", splits},
                                       {"per_cause", table.per_cause},
                                       {"split_count", table.splits},
                                       {"unexplained", table.unexplained}}
                            .dump(2)
                            .c_str());
    return Status::Ok();
  }
  std::printf("Where classes are born and why: %lld split(s) over %zu case(s)\n",
              static_cast<long long>(table.splits), study.cases.size());
  for (const auto& a : all) {
    std::printf("  %s  %s (%s): {%s} | {%s}: %s%s\n", a.case_label.c_str(), a.node.c_str(),
                a.op_type.c_str(), join(a.side_a, ", ").c_str(), join(a.side_b, ", ").c_str(),
                a.causes.empty() ? "no cause found" : join(a.causes, ", ").c_str(),
                a.source == "explain" ? " (explain)" : "");
  }
  if (table.splits > 0)
    std::printf("Splits per cause (a split with two causes counts for both):\n");
  for (const auto& [cause, n] : table.per_cause) {
    std::printf("  %-20s %lld\n", cause.c_str(), static_cast<long long>(n));
  }
  if (table.splits == 0) {
    std::printf(
        "No class splits at any captured node (a study with --layers all captures every "
        "node; one platform, or platforms that agree everywhere, give none).\n");
  } else if (table.unexplained == 0) {
    std::printf("Every split has a cause.\n");
  } else {
    std::printf("%lld split(s) without a cause.\n", static_cast<long long>(table.unexplained));
  }
  return Status::Ok();
}

}  // namespace

void add_attribute_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<AttributeArgs>();
  auto* cmd = app.add_subcommand(
      "attribute",
      "For every EQC split (where a class is born), the cause: the knobs in which the "
      "platforms on either side differ, confirmed by explain between libraries");
  cmd->add_option("--store", args->store, "Study store (SQLite file)")->required();
  cmd->add_option("--model", args->model, "Only this model (name or hash prefix)");
  cmd->add_flag("--no-explain", args->no_explain,
                "Between two libraries, say `library` without running explain");
  cmd->add_option("--max-trials", args->max_trials, "explain's configurations per side")
      ->capture_default_str();
  cmd->add_option("--max-elements", args->max_elements,
                  "explain only nodes with at most this many output elements")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->callback([args, &exit_code] {
    Status st = run_attribute(*args);
    if (!st.ok()) {
      std::fprintf(stderr, "infergap attribute: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli

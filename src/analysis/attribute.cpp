#include "analysis/attribute.h"

#include <algorithm>
#include <limits>
#include <set>

#include "analysis/explain_space.h"
#include "platform/spec.h"

namespace ig {

namespace {

// Per backend: knob -> cause. ref's knobs go through causes_of.
const std::map<std::string, std::map<std::string, std::string>>& knob_causes() {
  static const std::map<std::string, std::map<std::string, std::string>> table = {
      {"onednn",
       {{"isa", "simd-width"},
        {"threads", "thread-split"},
        {"conv", "conv-algorithm"},
        {"fuse", "fusion"},
        {"fallback", "library"}}},
      {"blas",
       {{"core", "simd-width"},
        {"arch", "simd-width"},
        {"threads", "thread-split"},
        {"lib", "library"},
        {"dtype", "precision"}}},
      {"opencv", {{"disable", "simd-width"}, {"threads", "thread-split"}}},
      {"ort", {{"opt", "fusion"}, {"threads", "thread-split"}}},
      {"xnnpack", {{"threads", "thread-split"}, {"fp16", "precision"}, {"fallback", "library"}}},
      {"torch",
       {{"mkldnn", "conv-algorithm"},
        {"threads", "thread-split"},
        {"deterministic", "accumulation-order"},
        {"fallback", "library"}}},
      {"cuda",
       {{"algo", "conv-algorithm"},
        {"tf32", "precision"},
        {"deterministic", "accumulation-order"},
        {"fallback", "library"}}},
  };
  return table;
}

// Each backend's defaults, so that `blas:lib=blis` and `blas:lib=blis,threads=1` do not differ.
const std::map<std::string, std::map<std::string, std::string>>& knob_defaults() {
  static const std::map<std::string, std::map<std::string, std::string>> table = {
      {"onednn",
       {{"isa", "all"}, {"threads", "1"}, {"conv", "auto"}, {"fuse", "on"}, {"fallback", "none"}}},
      {"blas", {{"lib", "openblas"}, {"threads", "1"}, {"dtype", "fp32"}}},
      {"opencv", {{"threads", "1"}}},
      {"ort", {{"opt", "all"}, {"threads", "1"}}},
      {"torch",
       {{"mkldnn", "on"}, {"threads", "1"}, {"deterministic", "off"}, {"fallback", "none"}}},
      {"xnnpack", {{"threads", "1"}, {"fp16", "off"}, {"fallback", "none"}}},
      {"ref",
       {{"acc", "seq"},
        {"fma", "off"},
        {"split", "1"},
        {"conv", "direct"},
        {"dtype", "fp32"},
        {"ftz", "off"},
        {"nan", "propagate"},
        {"math", "libm"}}},
  };
  return table;
}

std::string option_or_default(const PlatformSpec& spec, const std::string& key) {
  auto it = spec.options.find(key);
  if (it != spec.options.end()) return it->second;
  auto b = knob_defaults().find(spec.backend);
  if (b == knob_defaults().end()) return "";
  auto d = b->second.find(key);
  return d == b->second.end() ? "" : d->second;
}

void add(std::vector<std::string>& v, const std::string& c) {
  if (std::find(v.begin(), v.end(), c) == v.end()) v.push_back(c);
}

}  // namespace

std::vector<std::string> spec_causes(const std::string& a_label, const std::string& b_label) {
  // "spec@host" where a spec ran on several hosts: the same spec on two CPUs.
  const auto at_a = a_label.find('@'), at_b = b_label.find('@');
  const std::string a_text = a_label.substr(0, at_a), b_text = b_label.substr(0, at_b);
  auto a = parse_platform_spec(a_text);
  auto b = parse_platform_spec(b_text);
  if (!a.ok() || !b.ok()) return {};
  std::vector<std::string> causes;
  if (a->backend != b->backend) return {"library"};
  if (a_text == b_text) return {"host-cpu"};
  std::set<std::string> keys;
  for (const auto& [k, v] : a->options) keys.insert(k);
  for (const auto& [k, v] : b->options) keys.insert(k);
  const auto table = knob_causes().find(a->backend);
  for (const auto& key : keys) {
    const auto va = option_or_default(*a, key);
    const auto vb = option_or_default(*b, key);
    if (va == vb) continue;
    if (a->backend == "ref" || a->backend == "crashtest") {
      for (const auto* v : {&va, &vb}) {
        if (v->empty()) continue;
        for (const auto& c : causes_of({{key, *v}})) add(causes, c);
      }
      continue;
    }
    if (table != knob_causes().end() && table->second.count(key)) {
      add(causes, table->second.at(key));
    } else {
      add(causes, key);  // a knob we have no word for: its own name
    }
  }
  return causes;
}

std::vector<SplitAttribution> attribute_splits(const std::vector<SetOrigin>& splits) {
  std::vector<SplitAttribution> out;
  for (const auto& s : splits) {
    for (const auto& before : s.before.classes) {
      // The after-classes this before-class went into, in order of first member.
      std::vector<std::vector<std::string>> parts;
      std::map<int, size_t> part_of;
      for (const auto& p : before) {
        const int k = s.after.class_of(p);
        if (k < 0) continue;
        if (!part_of.count(k)) {
          part_of[k] = parts.size();
          parts.emplace_back();
        }
        parts[part_of[k]].push_back(p);
      }
      for (size_t i = 1; i < parts.size(); ++i) {
        SplitAttribution a;
        a.case_label = s.case_label;
        a.node_index = s.node.node_index;
        a.node = s.node.node;
        a.op_type = s.node.op_type;
        a.side_a = parts[0];
        a.side_b = parts[i];
        size_t fewest = std::numeric_limits<size_t>::max();
        for (const auto& p : parts[0]) {
          for (const auto& q : parts[i]) {
            auto c = spec_causes(p, q);
            // Prefer a pair of one backend (its knobs say more than `library`), then the fewest
            // causes; a pair without any cause last.
            const bool library = c.size() == 1 && c[0] == "library";
            const size_t weight = c.empty() ? std::numeric_limits<size_t>::max() - 1
                                  : library ? 1000
                                            : c.size();
            if (weight < fewest) {
              fewest = weight;
              a.a = p;
              a.b = q;
              a.causes = std::move(c);
            }
          }
        }
        a.source = "knobs";
        out.push_back(std::move(a));
      }
    }
  }
  return out;
}

AttributionTable tabulate(const std::vector<SplitAttribution>& attributions) {
  AttributionTable t;
  for (const auto& a : attributions) {
    ++t.splits;
    if (a.causes.empty()) ++t.unexplained;
    for (const auto& c : a.causes) ++t.per_cause[c];
  }
  return t;
}

}  // namespace ig

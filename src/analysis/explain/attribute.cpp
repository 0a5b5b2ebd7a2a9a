#include "analysis/explain/attribute.h"

#include <algorithm>
#include <limits>
#include <set>

#include "platform/spec.h"

namespace ig {

namespace {

void add(std::vector<std::string>& v, const std::string& c) {
  if (std::find(v.begin(), v.end(), c) == v.end()) v.push_back(c);
}

}  // namespace

std::vector<std::string> spec_causes(const KnobTables& knobs, const std::string& a_label,
                                     const std::string& b_label) {
  // "spec@host" where a spec ran on several hosts: the same spec on two CPUs.
  const auto at_a = a_label.find('@'), at_b = b_label.find('@');
  const std::string a_text = a_label.substr(0, at_a), b_text = b_label.substr(0, at_b);
  auto a = parse_platform_spec(a_text);
  auto b = parse_platform_spec(b_text);
  if (!a.ok() || !b.ok()) return {};
  if (a->backend != b->backend) return {"library"};
  if (a_text == b_text) return {"host-cpu"};
  std::set<std::string> keys;
  for (const auto& [k, v] : a->options) keys.insert(k);
  for (const auto& [k, v] : b->options) keys.insert(k);
  // Each knob set differently names the causes of both its values (`ref:acc=lanes16` against
  // `ref:acc=pairwise` is simd-width and accumulation-order); a default names none.
  std::vector<std::string> causes;
  for (const auto& key : keys) {
    const auto va = option_value(knobs, *a, key), vb = option_value(knobs, *b, key);
    if (va == vb) continue;
    for (const auto* v : {&va, &vb}) {
      if (v->empty()) continue;
      const std::string c = knob_value_cause(knobs, a->backend, key, *v);
      if (!c.empty()) add(causes, c);
    }
  }
  return causes;
}

std::vector<SplitAttribution> attribute_splits(const KnobTables& knobs,
                                               const std::vector<SetOrigin>& splits) {
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
      // Each part after the first is attributed against the closest of the parts before it:
      // libtorch 2.15 splitting off from 1.13 is an upgrade, whatever ran first in the class.
      for (size_t i = 1; i < parts.size(); ++i) {
        SplitAttribution a;
        a.case_label = s.case_label;
        a.node_index = s.node.node_index;
        a.node = s.node.node;
        a.op_type = s.node.op_type;
        a.side_a = parts[0];
        a.side_b = parts[i];
        size_t fewest = std::numeric_limits<size_t>::max();
        for (size_t j = 0; j < i; ++j) {
          for (const auto& p : parts[j]) {
            for (const auto& q : parts[i]) {
              auto c = spec_causes(knobs, p, q);
              // Prefer a pair of one backend (its knobs say more than `library`), then the
              // fewest causes, then the earliest part; a pair without any cause last.
              const bool library = c.size() == 1 && c[0] == "library";
              const size_t weight = c.empty() ? std::numeric_limits<size_t>::max() - 1
                                    : library ? 1000
                                              : c.size();
              if (weight < fewest) {
                fewest = weight;
                a.side_a = parts[j];
                a.a = p;
                a.b = q;
                a.causes = std::move(c);
              }
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

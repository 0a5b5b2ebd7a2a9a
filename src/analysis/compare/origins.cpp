#include "analysis/compare/origins.h"

#include <map>
#include <set>

namespace ig {

namespace {

enum class Equal { kYes, kNo, kUnknown };

Equal values_equal(const RepRun& a, const RepRun& b, const std::vector<std::string>& values) {
  Equal result = Equal::kYes;
  for (const auto& v : values) {
    auto ia = a.values.find(v);
    auto ib = b.values.find(v);
    if (ia == a.values.end() || ib == b.values.end()) {
      result = Equal::kUnknown;
      continue;
    }
    if (!(ia->second == ib->second)) return Equal::kNo;
  }
  return result;
}

Origin origin_of(const CaseData& c, const StoredNode& node) {
  Origin o;
  o.node_index = node.index;
  o.node = node.name;
  o.op_type = node.op_type;
  o.attributes = node.attributes;
  o.inputs = produced_inputs(c, node);
  return o;
}

std::vector<std::string> captured_outputs(const StoredNode& node, const RepRun& a,
                                          const RepRun& b) {
  std::vector<std::string> out;
  for (const auto& v : node.outputs)
    if (!v.empty() && a.values.count(v) && b.values.count(v)) out.push_back(v);
  return out;
}

// A node whose inputs differ between the pair, judged by steps: whether every input is within half
// a step and the output makes steps of its own.
Expected<bool> born_by_steps(const QuantIndex& quant, const Origin& o, const RepRun& a,
                             const RepRun& b, const ValuesSteps& out, TensorCache& cache) {
  if (!makes_steps(out.steps)) return false;
  for (const auto& v : o.inputs) {
    IG_ASSIGN_OR_RETURN(auto in, value_steps(quant, a, b, v, cache, &out.quant));
    if (!in || in->steps_max >= kStepsQuietInput) return false;
  }
  return true;
}

// The inputs of `node` that both runs captured, reaching back through producers whose outputs one
// of them lacks (a fused group, a compiler's whole graph) to the values both have; the nodes passed
// go to `group`. Graph inputs and weights are the same on both.
std::vector<std::string> reach_back(const std::map<std::string, const StoredNode*>& producer,
                                    const StoredNode& node, const RepRun& a, const RepRun& b,
                                    std::set<const StoredNode*>& group) {
  std::vector<std::string> frontier;
  std::vector<std::string> todo(node.inputs.begin(), node.inputs.end());
  std::set<std::string> seen;
  while (!todo.empty()) {
    const std::string v = todo.back();
    todo.pop_back();
    if (v.empty() || !seen.insert(v).second) continue;
    auto p = producer.find(v);
    if (p == producer.end()) continue;
    if (a.values.count(v) && b.values.count(v)) {
      frontier.push_back(v);
      continue;
    }
    group.insert(p->second);
    todo.insert(todo.end(), p->second->inputs.begin(), p->second->inputs.end());
  }
  return frontier;
}

}  // namespace

Expected<PairOrigins> pair_origins(const CaseData& c, const std::string& a, const std::string& b,
                                   TensorCache& cache) {
  PairOrigins po;
  po.a = a;
  po.b = b;
  po.case_label = c.label();
  auto ia = c.runs.find(a);
  auto ib = c.runs.find(b);
  const RepRun* ra = ia == c.runs.end() ? nullptr : ia->second.run();
  const RepRun* rb = ib == c.runs.end() ? nullptr : ib->second.run();
  if (!ra || !rb) return po;
  po.compared = true;
  const auto quant = quant_index_of(c);
  std::map<std::string, const StoredNode*> producer;
  for (const auto& n : c.nodes)
    for (const auto& v : n.outputs)
      if (!v.empty()) producer[v] = &n;
  for (const auto& node : c.nodes) {
    const auto outs = captured_outputs(node, *ra, *rb);
    if (outs.empty() || values_equal(*ra, *rb, outs) != Equal::kNo) continue;
    ++po.differing;
    Origin o = origin_of(c, node);
    IG_ASSIGN_OR_RETURN(auto steps, values_steps(*quant, *ra, *rb, outs, cache));
    if (steps) o.steps = steps->steps;
    switch (values_equal(*ra, *rb, o.inputs)) {
      case Equal::kNo: {
        bool born = false;
        if (steps) {
          IG_ASSIGN_OR_RETURN(born, born_by_steps(*quant, o, *ra, *rb, *steps, cache));
        }
        if (!born) {
          ++po.propagated;
          continue;
        }
        o.by_steps = true;
        break;
      }
      case Equal::kUnknown: {
        std::set<const StoredNode*> group;
        const auto frontier = reach_back(producer, node, *ra, *rb, group);
        if (values_equal(*ra, *rb, frontier) == Equal::kNo) {
          ++po.propagated;
          continue;
        }
        for (const auto& n : c.nodes)
          if (group.count(&n))
            o.covers.push_back(n.name.empty() ? "#" + std::to_string(n.index) : n.name);
        o.covers.push_back(node.name.empty() ? "#" + std::to_string(node.index) : node.name);
        break;
      }
      case Equal::kYes:
        break;
    }
    o.outputs = outs;
    IG_ASSIGN_OR_RETURN(o.remaining_precision, pair_precision(*ra, *rb, outs, cache));
    po.induced.push_back(std::move(o));
  }
  return po;
}

Expected<std::vector<SetOrigin>> set_origins(const CaseData& c,
                                             const std::vector<std::string>& platforms,
                                             TensorCache& cache) {
  IG_ASSIGN_OR_RETURN(auto rows, layer_table(c, platforms, cache));
  return set_origins(c, platforms, rows);
}

std::vector<SetOrigin> set_origins(const CaseData& c, const std::vector<std::string>& platforms,
                                   const std::vector<LayerRow>& rows) {
  std::vector<SetOrigin> out;
  for (const auto& row : rows) {
    if (!row.split) continue;
    const StoredNode* node = nullptr;
    for (const auto& n : c.nodes)
      if (n.index == row.node_index) node = &n;
    if (!node) continue;
    SetOrigin so;
    so.case_label = c.label();
    so.node = origin_of(c, *node);
    so.node.outputs = row.values;
    so.node.remaining_precision = row.remaining_precision;
    so.before = partition_values(c, platforms, so.node.inputs);
    so.after = row.partition;
    out.push_back(std::move(so));
  }
  return out;
}

Expected<std::vector<CaseOrigins>> study_origins(const StudyData& study, const std::string& a,
                                                 const std::string& b, TensorCache& cache) {
  const auto labels = study.labels();
  std::vector<std::pair<std::string, std::string>> pairs;
  if (!a.empty() || !b.empty()) {
    for (const auto* p : {&a, &b})
      if (std::find(labels.begin(), labels.end(), *p) == labels.end())
        return invalid_argument("no platform '{}' (platforms: {})", *p,
                                nlohmann::json(labels).dump());
    pairs.emplace_back(a, b);
  } else {
    for (size_t i = 0; i < labels.size(); ++i)
      for (size_t k = i + 1; k < labels.size(); ++k) pairs.emplace_back(labels[i], labels[k]);
  }
  std::vector<CaseOrigins> out;
  for (const auto& c : study.cases) {
    CaseOrigins co{&c, {}, {}};
    for (const auto& [pa, pb] : pairs) {
      IG_ASSIGN_OR_RETURN(auto po, pair_origins(c, pa, pb, cache));
      if (po.compared && po.differing != 0) co.pairs.push_back(std::move(po));
    }
    if (a.empty()) {
      IG_ASSIGN_OR_RETURN(co.splits, set_origins(c, labels, cache));
    }
    out.push_back(std::move(co));
  }
  return out;
}

}  // namespace ig

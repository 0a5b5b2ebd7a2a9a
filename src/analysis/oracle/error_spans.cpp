#include "analysis/oracle/error_spans.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/oracle/error.h"

namespace ig {

namespace {

bool traced_by_both(const RepRun& a, const RepRun& b, const std::string& v) {
  return a.values.count(v) && b.values.count(v);
}

std::string node_label(const StoredNode& n) {
  return n.name.empty() ? "#" + std::to_string(n.index) : n.name;
}

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= list.size()) {
    const size_t comma = std::min(list.find(',', pos), list.size());
    if (comma > pos) out.push_back(list.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

// The largest error over `values` and which value has it; error -1 if none is comparable.
struct Worst {
  double error = -1;
  std::string value;
  DType dtype = DType::kUndefined;
};

// One value's error (-1: not comparable) and dtype; a value is read by several spans.
using ErrorMemo = std::map<std::string, std::pair<double, DType>>;

Expected<Worst> worst_error(const RepRun& run, const RepRun& oracle,
                            const std::vector<std::string>& values, TensorCache& cache,
                            ErrorMemo& memo) {
  Worst w;
  for (const auto& v : values) {
    auto ir = run.values.find(v);
    auto io = oracle.values.find(v);
    if (ir == run.values.end() || io == oracle.values.end()) continue;
    auto known = memo.find(v);
    if (known == memo.end()) {
      auto& shared = cache.oracle_errors();
      const auto pair = std::make_pair(ir->second, io->second);
      auto hit = shared.find(pair);
      if (hit == shared.end()) {
        IG_ASSIGN_OR_RETURN(const double error, cache.oracle_error(ir->second, io->second));
        hit = shared.emplace(pair, std::make_pair(error, ir->second.dtype)).first;
      }
      known = memo.emplace(v, hit->second).first;
    }
    const auto [error, dtype] = known->second;
    if (error < 0 || error <= w.error) continue;
    w = {error, v, dtype};
  }
  return w;
}

}  // namespace

Expected<double> values_error(const RepRun& run, const RepRun& oracle,
                              const std::vector<std::string>& values, TensorCache& cache) {
  ErrorMemo memo;
  IG_ASSIGN_OR_RETURN(Worst w, worst_error(run, oracle, values, cache, memo));
  return w.error;
}

Expected<std::vector<ErrorSpan>> error_spans(const CaseData& c, const RepRun& run,
                                             const RepRun& oracle, TensorCache& cache) {
  std::map<std::string, size_t> producer;  // value -> position in c.nodes
  std::map<std::string, size_t> by_label;
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    for (const auto& o : c.nodes[i].outputs)
      if (!o.empty()) producer[o] = i;
    by_label[node_label(c.nodes[i])] = i;
  }
  std::vector<ErrorSpan> spans;
  ErrorMemo memo;
  for (size_t last = 0; last < c.nodes.size(); ++last) {
    const StoredNode& node = c.nodes[last];
    ErrorSpan s;
    for (const auto& o : node.outputs)
      if (!o.empty() && traced_by_both(run, oracle, o)) s.outputs.push_back(o);
    if (s.outputs.empty()) continue;
    // The nodes the platform declared as one with this one, then every producer of a value
    // entering the span that is not traced by both.
    std::set<size_t> members{last};
    for (const auto& o : s.outputs) {
      auto it = run.covers.find(o);
      if (it == run.covers.end()) continue;
      for (const auto& name : split_names(it->second)) {
        auto n = by_label.find(name);
        if (n != by_label.end() && n->second <= last) members.insert(n->second);
      }
      s.fused = true;
    }
    std::vector<size_t> todo(members.begin(), members.end());
    std::set<std::string> inputs;
    while (!todo.empty()) {
      const size_t i = todo.back();
      todo.pop_back();
      for (const auto& in : c.nodes[i].inputs) {
        auto p = producer.find(in);
        if (in.empty() || p == producer.end() || members.count(p->second)) continue;
        if (traced_by_both(run, oracle, in)) {
          inputs.insert(in);
        } else {
          members.insert(p->second);
          todo.push_back(p->second);
        }
      }
    }
    // A value read inside the span and produced inside it is not an input.
    for (size_t m : members)
      for (const auto& o : c.nodes[m].outputs) inputs.erase(o);
    s.inputs.assign(inputs.begin(), inputs.end());
    s.node_index = node.index;
    s.node = node.name;
    s.op_type = node.op_type;
    bool dequantizes = false, multiplies = false;
    for (size_t m : members) {
      s.cover_indices.push_back(c.nodes[m].index);
      s.covers.push_back(node_label(c.nodes[m]));
      const std::string& op = c.nodes[m].op_type;
      dequantizes |= op == "DequantizeLinear";
      multiplies |= op == "Conv" || op == "Gemm" || op == "MatMul";
    }
    s.integer_group = s.fused && dequantizes && multiplies;
    IG_ASSIGN_OR_RETURN(Worst out, worst_error(run, oracle, s.outputs, cache, memo));
    if (out.error < 0) continue;  // nothing comparable (strings)
    s.output_error = out.error;
    s.worst_output = out.value;
    s.dtype = out.dtype;
    IG_ASSIGN_OR_RETURN(Worst in, worst_error(run, oracle, s.inputs, cache, memo));
    s.input_error = std::max(0.0, in.error);
    spans.push_back(std::move(s));
  }
  return spans;
}

}  // namespace ig

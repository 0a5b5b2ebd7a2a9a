#include "analysis/reduce/reduce.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <set>

#include "analysis/campaign/data.h"
#include "analysis/compare/compare.h"
#include "model/onnx_model.h"
#include "model/subgraph.h"

namespace ig {

namespace {

namespace fs = std::filesystem;

using NodeSet = std::vector<size_t>;  // indices into graph.nodes, ascending

// Whether a and b differ under the criterion, and how, in words.
struct Difference {
  bool differ = false;
  std::string how;
};

Difference tensors_differ(const Tensor& a, const Tensor& b, const ReduceOptions& o) {
  Difference d;
  const Comparison c = compare_tensors(a, b);
  if (!c.comparable) return {true, c.why_not};
  if (c.identical) return d;
  d.how = fmt::format("{} of {} elements differ, max abs {:.3g}, remaining precision {}",
                      c.differing, c.elements, c.max_abs_error, c.remaining_precision);
  switch (o.criterion) {
    case ReduceCriterion::kBitwise:
      d.differ = true;
      break;
    case ReduceCriterion::kTolerance:
      if (!dtype_info(a.dtype()).is_float) {
        d.differ = true;
        break;
      }
      // As the campaign judges (an Inf against a finite value or the other Inf differs: their
      // distance is within any relative tolerance of an Inf).
      d.differ = !campaign::within_tolerance(a, b, o.rtol, o.atol);
      break;
    case ReduceCriterion::kLabel:
      d.differ = c.top1_flips > 0;
      if (d.differ)
        d.how = fmt::format("{} of {} rows change their top-1 label", c.top1_flips, c.rows);
      break;
  }
  return d;
}

class Reducer {
 public:
  Reducer(const std::string& model_path, const Model& model, WorkerPool& pool,
          const ReduceOptions& o)
      : model_path_(model_path), model_(model), pool_(pool), o_(o) {}

  Status init(const std::map<std::string, Tensor>& feeds) {
    IG_ASSIGN_OR_RETURN(proto_, read_model_proto(model_path_));
    const Graph& g = model_.graph;
    for (const auto& o : g.outputs) graph_outputs_.insert(o.name);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const auto& v : node_reads(g.nodes[i])) readers_[v].insert(i);
    }
    // Every value of the whole model, as the capture platform computed it.
    RunRequest r;
    r.platform = o_.capture_from;
    r.model_path = model_path_;
    r.inputs = feeds;
    r.capture.all_layers = true;
    r.timeout_seconds = o_.timeout_seconds;
    r.max_memory_bytes = o_.max_memory_bytes;
    say("capturing every value of the whole model on " + o_.capture_from);
    RunResult res = pool_.run(r);
    if (res.verdict != Verdict::kOk) {
      return invalid_argument("{}: the capture run on {} failed ({}): {}", model_path_,
                              o_.capture_from, verdict_name(res.verdict), res.reason);
    }
    values_ = feeds;
    for (auto& t : res.trace) values_[t.value] = std::move(t.tensor);
    for (auto& t : res.outputs) values_[t.value] = std::move(t.tensor);
    return Status::Ok();
  }

  // Runs the nodes as a model of their own on A and B. Cached by node set.
  Expected<Difference> test(const NodeSet& nodes) {
    auto it = cache_.find(nodes);
    if (it != cache_.end()) return it->second;
    IG_ASSIGN_OR_RETURN(Cut cut, cut_of(nodes));
    Difference d;
    if (cut.ok) {
      ++tests_;
      say(fmt::format("test {}: {} node(s)", tests_, nodes.size()));
      IG_ASSIGN_OR_RETURN(d, run_cut(cut, cut.inputs));
    }
    cache_[nodes] = d;
    return d;
  }

  struct Cut {
    bool ok = false;  // every value entering the nodes was captured
    onnx::ModelProto model;
    std::map<std::string, Tensor> inputs;
    std::vector<std::string> outputs;
  };

  Expected<Cut> cut_of(const NodeSet& nodes) {
    Cut cut;
    const Graph& g = model_.graph;
    std::set<std::string> produced;
    const std::set<size_t> in_set(nodes.begin(), nodes.end());
    for (size_t i : nodes)
      for (const auto& o : g.nodes[i].outputs)
        if (!o.empty()) produced.insert(o);
    std::set<std::string> reads;
    for (size_t i : nodes)
      for (const auto& v : node_reads(g.nodes[i])) reads.insert(v);
    std::vector<onnx::ValueInfoProto> in_vi, out_vi;
    for (const auto& v : reads) {
      if (v.empty() || produced.count(v) || g.is_initializer(v)) continue;
      auto t = values_.find(v);
      if (t == values_.end() || !t->second.defined()) return cut;  // not captured: no cut
      cut.inputs[v] = t->second;
      in_vi.push_back(tensor_value_info(v, t->second.dtype(), t->second.shape()));
    }
    for (const auto& v : produced) {
      bool leaves = graph_outputs_.count(v) != 0;
      auto r = readers_.find(v);
      if (r != readers_.end()) {
        for (size_t reader : r->second) leaves = leaves || !in_set.count(reader);
      }
      if (!leaves) continue;
      auto t = values_.find(v);
      if (t == values_.end() || !t->second.defined()) continue;
      cut.outputs.push_back(v);
      out_vi.push_back(tensor_value_info(v, t->second.dtype(), t->second.shape()));
    }
    if (cut.outputs.empty()) return cut;
    auto sub = subgraph_model(proto_, produced, in_vi, out_vi, "reduced", /*keep_subgraphs=*/true);
    if (!sub.ok()) return cut;
    cut.model = std::move(*sub);
    cut.ok = true;
    return cut;
  }

  // The original model file, whole, on A and B (not a cut: nothing of it is left out).
  Expected<Difference> test_whole(const std::map<std::string, Tensor>& feeds) {
    ++tests_;
    say("running the whole model on both platforms");
    return run_both(model_path_, feeds);
  }

  // The cut run on both platforms with other inputs (its elements zeroed by input reduction).
  Expected<Difference> test_with_inputs(const Cut& cut, const std::map<std::string, Tensor>& in) {
    ++tests_;
    say(fmt::format("test {}: zeroing input elements", tests_));
    return run_cut(cut, in);
  }

  int64_t tests() const { return tests_; }

 private:
  // The cut's model, written for the workers, run on both platforms with `inputs`.
  Expected<Difference> run_cut(const Cut& cut, const std::map<std::string, Tensor>& inputs) {
    const std::string path = (fs::path(o_.work_dir) / "candidate.onnx").string();
    IG_RETURN_IF_ERROR(save_model_proto(cut.model, path));
    return run_both(path, inputs);
  }

  Expected<Difference> run_both(const std::string& path,
                                const std::map<std::string, Tensor>& inputs) {
    std::vector<RunResult> rs;
    for (const auto* spec : {&o_.a, &o_.b}) {
      RunRequest r;
      r.platform = *spec;
      r.model_path = path;
      r.inputs = inputs;
      r.capture.all_layers = false;
      r.timeout_seconds = o_.timeout_seconds;
      r.max_memory_bytes = o_.max_memory_bytes;
      rs.push_back(pool_.run(r));
      // A platform that cannot run the cut (an op it refuses alone) does not reproduce; on the
      // whole model it is an error.
      if (rs.back().verdict != Verdict::kOk) {
        if (path != model_path_) return Difference{};
        return invalid_argument("{}: {} on the whole model: {}: {}", model_path_, *spec,
                                verdict_name(rs.back().verdict), rs.back().reason);
      }
    }
    Difference d;
    for (size_t i = 0; i < rs[0].outputs.size() && i < rs[1].outputs.size(); ++i) {
      Difference one = tensors_differ(rs[0].outputs[i].tensor, rs[1].outputs[i].tensor, o_);
      if (one.differ && !d.differ) {
        d = one;
        d.how = rs[0].outputs[i].value + ": " + d.how;
      }
    }
    return d;
  }

  void say(const std::string& s) {
    if (o_.progress) o_.progress(s);
  }

  std::string model_path_;
  const Model& model_;
  WorkerPool& pool_;
  const ReduceOptions& o_;
  onnx::ModelProto proto_;
  std::set<std::string> graph_outputs_;
  std::map<std::string, std::set<size_t>> readers_;
  std::map<std::string, Tensor> values_;
  std::map<NodeSet, Difference> cache_;
  int64_t tests_ = 0;
};

NodeSet range_set(size_t begin, size_t end) {
  NodeSet s(end - begin);
  std::iota(s.begin(), s.end(), begin);
  return s;
}

// Zeller's ddmin over the node list: chunks, then complements, finer until single nodes.
Expected<NodeSet> ddmin(Reducer& r, NodeSet current) {
  size_t n = 2;
  while (current.size() >= 2) {
    const size_t chunk = (current.size() + n - 1) / n;
    std::vector<NodeSet> parts;
    for (size_t i = 0; i < current.size(); i += chunk) {
      parts.emplace_back(
          current.begin() + static_cast<std::ptrdiff_t>(i),
          current.begin() + static_cast<std::ptrdiff_t>(std::min(i + chunk, current.size())));
    }
    bool reduced = false;
    for (const auto& p : parts) {
      IG_ASSIGN_OR_RETURN(Difference d, r.test(p));
      if (d.differ) {
        current = p;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && parts.size() > 2) {
      for (size_t k = 0; k < parts.size() && !reduced; ++k) {
        NodeSet complement;
        for (size_t j = 0; j < parts.size(); ++j)
          if (j != k) complement.insert(complement.end(), parts[j].begin(), parts[j].end());
        IG_ASSIGN_OR_RETURN(Difference d, r.test(complement));
        if (d.differ) {
          current = complement;
          n = std::max<size_t>(n - 1, 2);
          reduced = true;
        }
      }
    }
    if (reduced) continue;
    if (n >= current.size()) break;
    n = std::min(n * 2, current.size());
  }
  return current;
}

// The weakly connected pieces of `nodes` (edges: a value one produces and another reads).
std::vector<NodeSet> components(const Graph& g, const NodeSet& nodes) {
  std::map<std::string, std::vector<size_t>> touching;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node& n = g.nodes[nodes[k]];
    for (const auto& v : node_reads(n)) touching[v].push_back(k);
    for (const auto& v : n.outputs)
      if (!v.empty()) touching[v].push_back(k);
  }
  std::vector<size_t> parent(nodes.size());
  std::iota(parent.begin(), parent.end(), 0);
  std::function<size_t(size_t)> find = [&](size_t x) {
    return parent[x] == x ? x : parent[x] = find(parent[x]);
  };
  for (const auto& [v, ks] : touching) {
    if (g.is_initializer(v)) continue;  // sharing a weight does not connect nodes
    for (size_t k : ks) parent[find(k)] = find(ks[0]);
  }
  std::map<size_t, NodeSet> by_root;
  for (size_t k = 0; k < nodes.size(); ++k) by_root[find(k)].push_back(nodes[k]);
  std::vector<NodeSet> out;
  for (auto& [root, set] : by_root) out.push_back(std::move(set));
  std::sort(out.begin(), out.end(),
            [](const NodeSet& a, const NodeSet& b) { return a.size() < b.size(); });
  return out;
}

// Zeroes as many elements of the cut's floating inputs as it can while A and B still differ:
// chunks of the still-nonzero elements, halved each round, at most `budget` runs.
Expected<Difference> reduce_input_elements(Reducer& r, Reducer::Cut& cut, Difference last,
                                           int budget) {
  struct Ref {
    std::string input;
    int64_t index;
  };
  std::vector<Ref> live;
  for (const auto& [name, t] : cut.inputs) {
    if (!is_float(t.dtype())) continue;
    for (int64_t i = 0; i < t.numel(); ++i)
      if (t.as_double(i) != 0) live.push_back({name, i});
  }
  auto zero = [](Tensor& t, int64_t i) {
    std::memset(t.raw() + static_cast<size_t>(i) * dtype_size(t.dtype()), 0, dtype_size(t.dtype()));
  };
  for (size_t parts = 2; !live.empty() && budget > 0; parts *= 2) {
    const size_t chunk = std::max<size_t>(1, (live.size() + parts - 1) / parts);
    std::vector<Ref> kept;
    for (size_t start = 0; start < live.size(); start += chunk) {
      const size_t end = std::min(start + chunk, live.size());
      if (budget <= 0) {
        kept.insert(kept.end(), live.begin() + static_cast<std::ptrdiff_t>(start), live.end());
        break;
      }
      std::map<std::string, Tensor> trial;
      for (const auto& [name, t] : cut.inputs) trial[name] = t.clone();
      for (size_t k = start; k < end; ++k) zero(trial[live[k].input], live[k].index);
      --budget;
      IG_ASSIGN_OR_RETURN(Difference d, r.test_with_inputs(cut, trial));
      if (d.differ) {
        cut.inputs = std::move(trial);
        last = d;
      } else {
        kept.insert(kept.end(), live.begin() + static_cast<std::ptrdiff_t>(start),
                    live.begin() + static_cast<std::ptrdiff_t>(end));
      }
    }
    if (chunk == 1) break;
    live = std::move(kept);
  }
  return last;
}

}  // namespace

Expected<ReduceCriterion> parse_reduce_criterion(const std::string& text) {
  if (text == "bitwise") return ReduceCriterion::kBitwise;
  if (text == "tolerance") return ReduceCriterion::kTolerance;
  if (text == "label") return ReduceCriterion::kLabel;
  return invalid_argument("criterion '{}': use bitwise, tolerance or label", text);
}

const char* reduce_criterion_name(ReduceCriterion c) {
  switch (c) {
    case ReduceCriterion::kBitwise:
      return "bitwise";
    case ReduceCriterion::kTolerance:
      return "tolerance";
    default:
      return "label";
  }
}

Expected<ReduceResult> reduce_model(const std::string& model_path, const Model& model,
                                    const std::map<std::string, Tensor>& feeds, WorkerPool& pool,
                                    const ReduceOptions& options) {
  const Graph& g = model.graph;
  ReduceResult result;
  result.original_nodes = static_cast<int64_t>(g.nodes.size());
  if (g.nodes.empty()) return invalid_argument("{}: the model has no nodes", model_path);
  Reducer r(model_path, model, pool, options);
  IG_RETURN_IF_ERROR(r.init(feeds));
  IG_ASSIGN_OR_RETURN(Difference whole, r.test_whole(feeds));
  if (!whole.differ) {
    result.agree = true;
    return result;
  }
  // The shortest prefix that still differs, then the shortest suffix of it: a window of
  // consecutive nodes in about 2 log2(n) tests, before ddmin works inside it.
  size_t lo = 1, hi = g.nodes.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    IG_ASSIGN_OR_RETURN(Difference d, r.test(range_set(0, mid)));
    if (d.differ)
      hi = mid;
    else
      lo = mid + 1;
  }
  const size_t end = hi;
  size_t s_lo = 0, s_hi = end - 1;
  while (s_lo < s_hi) {
    const size_t mid = (s_lo + s_hi + 1) / 2;
    IG_ASSIGN_OR_RETURN(Difference d, r.test(range_set(mid, end)));
    if (d.differ)
      s_lo = mid;
    else
      s_hi = mid - 1;
  }
  IG_ASSIGN_OR_RETURN(NodeSet best, ddmin(r, range_set(s_lo, end)));
  auto parts = components(g, best);
  if (parts.size() > 1) {
    for (const auto& p : parts) {
      IG_ASSIGN_OR_RETURN(Difference d, r.test(p));
      if (d.differ) {
        best = p;
        break;
      }
    }
  }
  IG_ASSIGN_OR_RETURN(Difference last, r.test(best));
  IG_ASSIGN_OR_RETURN(Reducer::Cut cut, r.cut_of(best));
  if (!last.differ || !cut.ok) return internal_error("reduce lost the difference it had found");
  if (options.input_budget > 0) {
    IG_ASSIGN_OR_RETURN(last, reduce_input_elements(r, cut, last, options.input_budget));
    for (const auto& [name, t] : cut.inputs) {
      int64_t nonzero = 0;
      if (is_float(t.dtype()))
        for (int64_t i = 0; i < t.numel(); ++i) nonzero += t.as_double(i) != 0;
      result.input_elements[name] = {nonzero, t.numel()};
    }
  }
  for (size_t i : best) {
    result.nodes.push_back(g.nodes[i].name.empty() ? "#" + std::to_string(i) : g.nodes[i].name);
    result.ops.push_back(g.nodes[i].op_type);
  }
  result.model = std::move(cut.model);
  result.inputs = std::move(cut.inputs);
  result.outputs = std::move(cut.outputs);
  result.a_vs_b = last.how;
  result.tests = r.tests();
  return result;
}

}  // namespace ig

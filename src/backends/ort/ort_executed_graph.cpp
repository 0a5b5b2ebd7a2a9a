#include "backends/ort/ort_executed_graph.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace ig {

namespace {

constexpr const char* kNchwc = "com.microsoft.nchwc";
// What an added ReorderOutput's value is called: ORT's names never end so.
constexpr const char* kNchwSuffix = ".infergap_nchw";

// A value of the optimized graph, read as a value of the original model.
struct Mapped {
  std::string original;
  bool blocked = false;       // NCHWc layout (channels in blocks of the CPU's vector width)
  std::vector<int64_t> perm;  // else, when not empty: Transpose(original, perm) (NHWC kernels)
};

// Ops that keep their input's layout: ORT runs them on NHWC values between QLinearConvs.
bool keeps_layout(const std::string& op) {
  static const std::set<std::string> ops = {
      "DequantizeLinear", "QuantizeLinear", "Relu", "Clip",     "Add",      "Mul", "Sub",
      "Sigmoid",          "Tanh",           "Cast", "Identity", "LeakyRelu"};
  return ops.count(op) != 0;
}

struct OriginalIndex {
  explicit OriginalIndex(const Graph& graph) : g(graph) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const auto& o : g.nodes[i].outputs)
        if (!o.empty()) producer[o] = i;
      for (const auto& in : g.nodes[i].inputs)
        if (!in.empty()) consumers[in].push_back(i);
    }
    for (const auto& o : g.outputs) graph_outputs.insert(o.name);
  }
  // The one node reading `value`, when nothing else (another node, the caller) does.
  std::optional<size_t> sole_consumer(const std::string& value) const {
    auto it = consumers.find(value);
    if (graph_outputs.count(value) || it == consumers.end() || it->second.size() != 1) return {};
    return it->second[0];
  }
  const ValueInfo* info(const std::string& value) const {
    if (auto it = g.value_info.find(value); it != g.value_info.end()) return &it->second;
    for (const auto* list : {&g.outputs, &g.inputs})
      for (const auto& v : *list)
        if (v.name == value) return &v;
    return nullptr;
  }
  const Graph& g;
  std::unordered_map<std::string, size_t> producer;
  std::unordered_map<std::string, std::vector<size_t>> consumers;
  std::set<std::string> graph_outputs;
};

const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& key) {
  for (const auto& a : n.attribute())
    if (a.name() == key) return &a;
  return nullptr;
}

// The original op types an NCHWc node stands for.
std::vector<std::string> nchwc_bases(const std::string& op) {
  if (op == "Upsample") return {"Upsample", "Resize"};
  // ORT's NCHWc transformer turns a BatchNormalization into a depthwise 1x1 Conv.
  if (op == "Conv") return {"Conv", "BatchNormalization"};
  if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" || op == "GlobalMaxPool")
    return {op};
  return {};
}

// Same kernel geometry where both say it (a Pad that ORT folded into a pool changes only pads).
bool same_geometry(const onnx::NodeProto& executed, const Node& original) {
  if (original.op_type == "BatchNormalization") return true;  // no kernel to compare
  for (const char* key : {"kernel_shape", "strides", "dilations"}) {
    const auto* a = find_attr(executed, key);
    if (!a || !original.has_attr(key)) continue;
    const std::vector<int64_t> ints(a->ints().begin(), a->ints().end());
    if (ints != original.attr_ints(key)) return false;
  }
  const auto* group = find_attr(executed, "group");
  return !group || original.attr_int("group", 1) == group->i();
}

// An NCHWc Conv's weight has the output channels rounded up to its block (at most 64 floats).
bool same_output_channels(const onnx::NodeProto& executed, const Node& original,
                          const std::map<std::string, std::vector<int64_t>>& weight_dims,
                          const Graph& g) {
  if (executed.op_type() != "Conv" || executed.input_size() < 2 || original.inputs.size() < 2)
    return true;
  auto w = weight_dims.find(executed.input(1));
  auto ow = g.initializers.find(original.inputs[1]);
  if (w == weight_dims.end() || w->second.empty() || ow == g.initializers.end() ||
      ow->second.shape().empty())
    return true;
  const int64_t padded = w->second[0], channels = ow->second.shape()[0];
  return padded >= channels && padded - channels < 64;
}

class Mapper {
 public:
  Mapper(const Model& original, const onnx::ModelProto& optimized)
      : ix_(original.graph), opt_(optimized.graph()) {
    for (const auto& t : opt_.initializer())
      weight_dims_[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
    for (const auto& in : original.graph.inputs) mapped_[in.name] = {in.name, false, {}};
    for (const auto& n : opt_.node())
      for (const auto& o : n.output()) produced_.insert(o);
    std::set<std::string> repeated;
    for (size_t i = 0; i < original.graph.nodes.size(); ++i) {
      const std::string& name = original.graph.nodes[i].name;
      if (!name.empty() && !node_named_.emplace(name, i).second) repeated.insert(name);
    }
    for (const auto& name : repeated) node_named_.erase(name);
  }

  void run() {
    for (const auto& n : opt_.node()) map_node(n);
  }
  const std::map<std::string, Mapped>& mapped() const { return mapped_; }
  bool produced(const std::string& name) const { return produced_.count(name) != 0; }

 private:
  void map_node(const onnx::NodeProto& n) {
    bool blocked_in = false;
    std::set<std::vector<int64_t>> perms_in;
    for (const auto& in : n.input()) {
      if (auto it = mapped_.find(in); it != mapped_.end()) {
        blocked_in |= it->second.blocked;
        perms_in.insert(it->second.perm);
      }
    }
    // A value under an original name is that value (ReorderOutput's output is NCHW).
    bool all_original = true;
    for (const auto& o : n.output()) {
      if (o.empty()) continue;
      if (auto p = ix_.producer.find(o); p != ix_.producer.end()) {
        mapped_[o] = {o, false, {}};
        taken_.insert(p->second);
      } else {
        all_original = false;
      }
    }
    if (all_original || n.input_size() == 0 || n.output_size() != 1) return;
    const bool nchwc = n.domain() == kNchwc;
    if (nchwc && n.op_type() == "ReorderInput") {
      if (auto it = mapped_.find(n.input(0)); it != mapped_.end())
        mapped_[n.output(0)] = {it->second.original, true, {}};
      return;
    }
    if (nchwc && n.op_type() == "ReorderOutput") {
      if (auto it = mapped_.find(n.input(0)); it != mapped_.end())
        mapped_[n.output(0)] = {it->second.original, false, {}};
      return;
    }
    if (n.domain().empty() && n.op_type() == "Transpose") {
      map_transpose(n);
      return;
    }
    // A value in a permuted layout: only through ops that keep it, and one layout at a time.
    const std::vector<int64_t> perm =
        perms_in.size() == 1 ? *perms_in.begin() : std::vector<int64_t>{};
    const bool qlinear = n.op_type().rfind("QLinear", 0) == 0 &&
                         (n.domain().empty() || n.domain() == "com.microsoft");
    if (perms_in.size() > 1 || (!perm.empty() && !qlinear && !keeps_layout(n.op_type()))) return;
    if (qlinear) {
      auto end = match_qlinear(n, n.op_type().substr(7));
      if (!end) end = match_by_node_name(n, true);
      if (end) mapped_[n.output(0)] = {*end, false, perm};
      return;
    }
    const std::vector<std::string> bases =
        nchwc ? nchwc_bases(n.op_type())
              : (n.domain().empty() ? std::vector<std::string>{n.op_type()}
                                    : std::vector<std::string>{});
    if (bases.empty()) return;
    auto end = match_chain(n, bases);
    if (!end && !nchwc && !blocked_in) end = match_by_node_name(n, false);
    if (end) mapped_[n.output(0)] = {*end, nchwc || blocked_in, perm};
  }

  // Transpose(v, p) of a mapped v: the same original value in a composed layout.
  void map_transpose(const onnx::NodeProto& n) {
    auto in = mapped_.find(n.input(0));
    const auto* attr = find_attr(n, "perm");
    if (in == mapped_.end() || in->second.blocked || !attr) return;
    const std::vector<int64_t>& before = in->second.perm;
    std::vector<int64_t> composed;
    bool identity = true;
    for (int i = 0; i < attr->ints_size(); ++i) {
      const int64_t axis = attr->ints(i);
      if (axis < 0 || axis >= attr->ints_size()) return;
      composed.push_back(before.empty() ? axis : before.at(static_cast<size_t>(axis)));
      identity &= composed.back() == i;
    }
    if (!before.empty() && before.size() != composed.size()) return;
    mapped_[n.output(0)] = {in->second.original, false,
                            identity ? std::vector<int64_t>{} : composed};
  }

  // A QLinear<X> node stands for DequantizeLinear -> X -> [Relu | Clip] -> QuantizeLinear, the
  // first DequantizeLinear reading n's first input.
  std::optional<std::string> match_qlinear(const onnx::NodeProto& n, const std::string& base) {
    auto first = mapped_.find(n.input(0));
    if (first == mapped_.end()) return {};
    std::optional<std::pair<std::vector<size_t>, std::string>> match;
    for (size_t d : consumers_of(first->second.original)) {
      if (taken_.count(d) || ix_.g.nodes[d].op_type != "DequantizeLinear") continue;
      for (size_t c : consumers_of(ix_.g.nodes[d].outputs[0])) {
        const Node& x = ix_.g.nodes[c];
        if (taken_.count(c) || x.op_type != base || !same_geometry(n, x)) continue;
        std::vector<size_t> members{d};
        auto end = quantized_tail(c, members);
        if (!end) continue;
        if (match) return {};  // two fit: leave it unmapped rather than guess
        match.emplace(std::move(members), std::move(*end));
      }
    }
    if (!match) return {};
    for (size_t m : match->first) taken_.insert(m);
    return match->second;
  }

  // From node c on: [Relu | Clip], then QuantizeLinear; the value that ends it.
  std::optional<std::string> quantized_tail(size_t c, std::vector<size_t>& members) const {
    members.push_back(c);
    std::string end = ix_.g.nodes[c].outputs.at(0);
    auto next = [&](const std::set<std::string>& ops) {
      auto s = ix_.sole_consumer(end);
      if (!s || produced(end) || taken_.count(*s) || !ops.count(ix_.g.nodes[*s].op_type))
        return false;
      members.push_back(*s);
      end = ix_.g.nodes[*s].outputs[0];
      return true;
    };
    next({"Relu", "Clip"});
    if (!next({"QuantizeLinear"})) return {};
    return end;
  }

  // ORT names the values of nodes it rebuilt (changing their layout) after the original node: a
  // value named like an original node of its type (for QLinear<X>: of type X, then the Q) is
  // that node's.
  std::optional<std::string> match_by_node_name(const onnx::NodeProto& n, bool qlinear) {
    auto it = node_named_.find(n.output(0));
    if (it == node_named_.end() || taken_.count(it->second)) return {};
    const Node& x = ix_.g.nodes[it->second];
    if (x.outputs.size() != 1) return {};
    std::vector<size_t> members;
    std::optional<std::string> end;
    if (qlinear && x.op_type == n.op_type().substr(7)) {
      end = quantized_tail(it->second, members);
    } else if (!qlinear && n.domain().empty() && x.op_type == n.op_type()) {
      members.push_back(it->second);
      end = x.outputs[0];
    }
    if (!end) return {};
    for (size_t m : members) taken_.insert(m);
    return end;
  }

  // The original node `n` computes (first a node of a `bases` type reading n's first input,
  // possibly through a Pad, then what ORT fused after it), as the value the chain ends with;
  // nothing when no original node, or more than one, fits.
  std::optional<std::string> match_chain(const onnx::NodeProto& n,
                                         const std::vector<std::string>& bases) {
    auto first = mapped_.find(n.input(0));
    if (first == mapped_.end()) return {};
    std::vector<std::string> others;  // the other inputs' original values
    for (int i = 1; i < n.input_size(); ++i)
      if (auto it = mapped_.find(n.input(i)); it != mapped_.end())
        others.push_back(it->second.original);
    std::vector<std::pair<size_t, std::optional<size_t>>> candidates;  // (node, its Pad)
    auto consider = [&](size_t c, std::optional<size_t> pad) {
      const Node& node = ix_.g.nodes[c];
      if (taken_.count(c) || std::find(bases.begin(), bases.end(), node.op_type) == bases.end())
        return;
      if (!same_geometry(n, node) || !same_output_channels(n, node, weight_dims_, ix_.g)) return;
      for (const auto& o : others)
        if (std::find(node.inputs.begin(), node.inputs.end(), o) == node.inputs.end() &&
            !(n.domain() == kNchwc && n.op_type() == "Conv"))  // the Sum input enters later
          return;
      candidates.emplace_back(c, pad);
    };
    for (size_t c : consumers_of(first->second.original)) {
      consider(c, std::nullopt);
      const Node& node = ix_.g.nodes[c];
      if (node.op_type == "Pad" && !taken_.count(c) && !produced(node.outputs[0]))
        for (size_t d : consumers_of(node.outputs[0])) consider(d, c);
    }
    // Each candidate with what ORT fused after it; a match is one candidate whose chain fits.
    std::optional<std::pair<std::vector<size_t>, std::string>> match;
    for (auto [base, pad] : candidates) {
      std::vector<size_t> members{base};
      if (pad) members.push_back(*pad);
      std::string end = ix_.g.nodes[base].outputs.empty() ? "" : ix_.g.nodes[base].outputs[0];
      if (n.domain() == kNchwc && n.op_type() == "Conv" && !extend_conv(n, end, members)) continue;
      if (match) return {};  // two fit: leave it unmapped rather than guess
      match.emplace(std::move(members), std::move(end));
    }
    if (!match) return {};
    for (size_t m : match->first) taken_.insert(m);
    return match->second;
  }

  // What ORT folds into a convolution after it: BatchNormalization, a Mul or Add by a constant,
  // then an NCHWc Conv's Sum input (an Add) and its activation. False when the original nodes
  // after `end` do not fit the executed node's attributes.
  bool extend_conv(const onnx::NodeProto& n, std::string& end, std::vector<size_t>& members) {
    auto next_fused = [&](auto&& fits) -> bool {
      if (produced(end)) return false;  // the executed graph computes it on its own
      auto c = ix_.sole_consumer(end);
      if (!c || taken_.count(*c) || !fits(ix_.g.nodes[*c])) return false;
      members.push_back(*c);
      end = ix_.g.nodes[*c].outputs[0];
      return true;
    };
    auto by_constant = [&](const Node& node) {
      if (node.op_type == "BatchNormalization") return true;
      if (node.op_type != "Mul" && node.op_type != "Add") return false;
      return std::any_of(node.inputs.begin(), node.inputs.end(),
                         [&](const std::string& in) { return ix_.g.is_initializer(in); });
    };
    while (next_fused(by_constant)) {
    }
    if (n.input_size() > 3 && !n.input(3).empty()) {
      auto sum = mapped_.find(n.input(3));
      if (sum == mapped_.end()) return false;
      auto adds = [&](const Node& node) {
        return (node.op_type == "Add" || node.op_type == "Sum") &&
               std::find(node.inputs.begin(), node.inputs.end(), sum->second.original) !=
                   node.inputs.end();
      };
      if (!next_fused(adds)) return false;
    }
    const auto* activation = find_attr(n, "activation");
    if (activation && !activation->s().empty()) {
      auto activates = [&](const Node& node) { return node.op_type == activation->s(); };
      if (!next_fused(activates)) return false;
    }
    return true;
  }

  const std::vector<size_t>& consumers_of(const std::string& value) const {
    static const std::vector<size_t> none;
    auto it = ix_.consumers.find(value);
    return it == ix_.consumers.end() ? none : it->second;
  }

  OriginalIndex ix_;
  const onnx::GraphProto& opt_;
  std::map<std::string, std::vector<int64_t>> weight_dims_;
  std::map<std::string, Mapped> mapped_;      // optimized value -> original value
  std::set<std::string> produced_;            // values some optimized node produces
  std::set<size_t> taken_;                    // original nodes already matched
  std::map<std::string, size_t> node_named_;  // original node by its (unique) name
};

std::string node_id(const Graph& g, size_t i) {
  return g.nodes[i].name.empty() ? "#" + std::to_string(i) : g.nodes[i].name;
}

// What ORT ran for a value: the optimized node producing it and what that node read from nodes
// of its own making, back to values of the original model ("com.microsoft.FusedConv"). Layout
// changes of one value (ReorderOutput, the Transposes around NHWC kernels) are not named.
std::string executed_ops(const onnx::GraphProto& opt, const std::map<std::string, int>& producer,
                         const std::string& value, const std::map<std::string, Mapped>& mapped) {
  auto original_of = [&](const std::string& v) {
    auto it = mapped.find(v);
    return it == mapped.end() ? std::string() : it->second.original;
  };
  const std::string original = original_of(value);
  std::vector<std::string> ops;
  std::set<int> seen;
  std::vector<std::string> todo{value};
  while (!todo.empty()) {
    auto it = producer.find(todo.back());
    todo.pop_back();
    if (it == producer.end() || !seen.insert(it->second).second) continue;
    const auto& n = opt.node(it->second);
    const bool layout_only = n.input_size() > 0 && !original_of(n.input(0)).empty() &&
                             original_of(n.input(0)) == original_of(n.output(0));
    if (!layout_only)
      ops.insert(ops.begin(), (n.domain().empty() ? "" : n.domain() + ".") + n.op_type());
    for (const auto& in : n.input())
      if (!in.empty() && (!mapped.count(in) || original_of(in) == original)) todo.push_back(in);
  }
  std::string text;
  for (const auto& op : ops) text += (text.empty() ? "" : "+") + op;
  return text;
}

}  // namespace

Expected<ExecutedPlan> expose_executed_graph(const Model& original, onnx::ModelProto& optimized) {
  Mapper mapper(original, optimized);
  mapper.run();
  const Graph& g = original.graph;
  const OriginalIndex ix(g);
  // Each original value once: under its own name where the executed graph has it, else from
  // an NCHWc value (the first, in execution order).
  std::map<std::string, std::string> source;  // original value -> optimized value
  std::set<std::string> blocked;
  std::map<std::string, std::vector<int64_t>> permuted;
  for (const auto& n : optimized.graph().node()) {
    for (const auto& o : n.output()) {
      auto m = mapper.mapped().find(o);
      if (m == mapper.mapped().end()) continue;
      auto [it, fresh] = source.emplace(m->second.original, o);
      if (!m->second.blocked && o == m->second.original) it->second = o;
      if (fresh && m->second.blocked) blocked.insert(o);
      if (fresh && !m->second.perm.empty()) permuted[o] = m->second.perm;
    }
  }
  std::map<std::string, int> producer;  // in the optimized graph, before nodes are added
  for (int i = 0; i < optimized.graph().node_size(); ++i)
    for (const auto& o : optimized.graph().node(i).output()) producer[o] = i;
  ExecutedPlan plan;
  std::map<std::string, std::string> ran;  // fetched value -> what ORT ran for it
  std::set<std::string> exposed;
  for (const auto& o : optimized.graph().output()) exposed.insert(o.name());
  auto* graph = optimized.mutable_graph();
  for (const auto& [value, from] : source) {
    if (!ix.producer.count(value)) continue;  // a graph input
    const ValueInfo* vi = ix.info(value);
    if (!vi || !vi->is_tensor || vi->dtype == DType::kUndefined) continue;
    std::string fetch = from;
    ran[from + kNchwSuffix] = ran[from] =
        executed_ops(optimized.graph(), producer, from, mapper.mapped());
    if (auto p = permuted.find(from); p != permuted.end()) {
      // ORT's NHWC kernels: a Transpose back to the original layout.
      std::vector<int64_t> inverse(p->second.size());
      for (size_t k = 0; k < p->second.size(); ++k)
        inverse[static_cast<size_t>(p->second[k])] = static_cast<int64_t>(k);
      fetch = from + kNchwSuffix;
      auto* node = graph->add_node();
      node->set_op_type("Transpose");
      node->add_input(from);
      node->add_output(fetch);
      auto* attr = node->add_attribute();
      attr->set_name("perm");
      attr->set_type(onnx::AttributeProto::INTS);
      for (int64_t a : inverse) attr->add_ints(a);
      ++plan.permuted_values;
    } else if (blocked.count(from) && from != value) {
      // NCHWc keeps channels in blocks padded to the vector width: ReorderOutput gives NCHW.
      if (!vi->has_shape || vi->dims.size() != 4 || vi->dims[1].value <= 0) continue;
      fetch = from + kNchwSuffix;
      auto* node = graph->add_node();
      node->set_op_type("ReorderOutput");
      node->set_domain(kNchwc);
      node->add_input(from);
      node->add_output(fetch);
      auto* channels = node->add_attribute();
      channels->set_name("channels");
      channels->set_type(onnx::AttributeProto::INT);
      channels->set_i(vi->dims[1].value);
      ++plan.nchwc_values;
    }
    if (!exposed.count(fetch)) {
      auto* out = graph->add_output();
      out->set_name(fetch);
      out->mutable_type()->mutable_tensor_type()->set_elem_type(static_cast<int>(vi->dtype));
      exposed.insert(fetch);
    }
    plan.fetch.push_back(fetch);
    source[value] = fetch;
  }
  const std::set<std::string> fetched(plan.fetch.begin(), plan.fetch.end());
  // Values computed from constants alone (an Identity on a weight), which ORT folds at load: no
  // group covers them.
  std::set<std::string> captured;
  for (const auto& [name, t] : g.initializers) captured.insert(name);
  for (const auto& n : g.nodes)
    if (std::all_of(n.inputs.begin(), n.inputs.end(),
                    [&](const std::string& in) { return in.empty() || captured.count(in); }))
      for (const auto& o : n.outputs) captured.insert(o);
  plan.fetch_of.resize(g.nodes.size());
  plan.reports.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& o : g.nodes[i].outputs) {
      auto it = source.find(o);
      const bool have = !o.empty() && it != source.end() && fetched.count(it->second);
      plan.fetch_of[i].push_back(have ? it->second : "");
      if (have) captured.insert(o);
    }
  }
  // A reported node covers every original node upstream whose value the executed graph lacks.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& fetches = plan.fetch_of[i];
    if (std::all_of(fetches.begin(), fetches.end(), [](const auto& f) { return f.empty(); }))
      continue;
    std::set<size_t> members{i};
    std::vector<size_t> todo{i};
    while (!todo.empty()) {
      const size_t m = todo.back();
      todo.pop_back();
      for (const auto& in : g.nodes[m].inputs) {
        auto p = ix.producer.find(in);
        if (in.empty() || captured.count(in) || p == ix.producer.end()) continue;
        if (members.insert(p->second).second) todo.push_back(p->second);
      }
    }
    NodeReport& r = plan.reports[i];
    if (members.size() > 1)
      for (size_t m : members) r.covers += (r.covers.empty() ? "" : ",") + node_id(g, m);
    for (size_t k = 0; k < fetches.size(); ++k) {
      if (fetches[k].empty()) continue;
      const std::string& op = ran[fetches[k]];
      if (op != g.nodes[i].op_type || members.size() > 1) r.note = "ort ran " + op;
      break;
    }
  }
  return plan;
}

}  // namespace ig

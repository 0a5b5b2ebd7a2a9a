#include "backends/ort/ort_graph_mapper.h"

#include <onnx/onnx_pb.h>

#include <algorithm>

namespace ig {

namespace {

// The original op type an executed int8 node stands for, as DequantizeLinear -> X -> [Relu |
// Clip] -> QuantizeLinear: QLinear<X>, and NhwcMaxPool (a MaxPool whose QDQ ORT dropped, run on
// NHWC integers between QLinearConvs, so it keeps its input's layout). "" for other nodes.
std::string quantized_base(const onnx::NodeProto& n) {
  const bool ours = n.domain().empty() || n.domain() == "com.microsoft";
  if (ours && n.op_type().rfind("QLinear", 0) == 0) return n.op_type().substr(7);
  if (n.domain() == "com.microsoft" && n.op_type() == "NhwcMaxPool") return "MaxPool";
  return "";
}

// Ops that keep their input's layout: ORT runs them on NHWC values between QLinearConvs.
bool keeps_layout(const std::string& op) {
  static const std::set<std::string> ops = {
      "DequantizeLinear", "QuantizeLinear", "Relu", "Clip",     "Add",      "Mul", "Sub",
      "Sigmoid",          "Tanh",           "Cast", "Identity", "LeakyRelu"};
  return ops.count(op) != 0;
}

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
    for (const auto& in : original.graph.inputs) {
      mapped_[in.name] = {in.name, false, {}, false};
      graph_inputs_.insert(in.name);
    }
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
    bool blocked_in = false, widened_in = false;
    std::set<std::vector<int64_t>> perms_in;
    for (const auto& in : n.input()) {
      if (auto it = mapped_.find(in); it != mapped_.end()) {
        blocked_in |= it->second.blocked;
        perms_in.insert(it->second.perm);
        widened_in |= it->second.widened;
      }
    }
    // A value under an original name is that value (ReorderOutput's output is NCHW); under
    // ORT's widened name, that value in float32.
    bool all_original = true;
    for (const auto& o : n.output()) {
      if (o.empty()) continue;
      const bool own = ix_.producer.count(o) != 0;
      const std::string name = own ? o : widened_original(o);
      const bool widened = name != o;
      if (auto p = ix_.producer.find(name); p != ix_.producer.end()) {
        mapped_[o] = {name, false, {}, widened};
        taken_.insert(p->second);
      } else if (widened && graph_inputs_.count(name)) {
        mapped_[o] = {name, false, {}, true};
      } else {
        all_original = false;
      }
    }
    if (all_original || n.input_size() == 0 || n.output_size() != 1) return;
    map_computed(n, blocked_in, widened_in, perms_in);
  }

  // "InsertedPrecisionFreeCast_V" -> "V"; other names as they are.
  static std::string widened_original(const std::string& name) {
    const std::string prefix = kOrtWidenedPrefix;
    return name.rfind(prefix, 0) == 0 && name.size() > prefix.size() ? name.substr(prefix.size())
                                                                     : name;
  }

  // A node whose output ORT renamed: what it computes, from its kind and what it reads.
  void map_computed(const onnx::NodeProto& n, bool blocked_in, bool widened_in,
                    const std::set<std::vector<int64_t>>& perms_in) {
    const bool nchwc = n.domain() == kOrtNchwcDomain;
    if (nchwc && n.op_type() == "ReorderInput") {
      if (auto it = mapped_.find(n.input(0)); it != mapped_.end())
        mapped_[n.output(0)] = {it->second.original, true, {}, it->second.widened};
      return;
    }
    if (nchwc && n.op_type() == "ReorderOutput") {
      if (auto it = mapped_.find(n.input(0)); it != mapped_.end())
        mapped_[n.output(0)] = {it->second.original, false, {}, it->second.widened};
      return;
    }
    if (n.domain().empty() && n.op_type() == "Transpose") {
      map_transpose(n);
      return;
    }
    // A value in a permuted layout: only through ops that keep it, and one layout at a time.
    const std::vector<int64_t> perm =
        perms_in.size() == 1 ? *perms_in.begin() : std::vector<int64_t>{};
    const std::string qbase = quantized_base(n);
    const bool qlinear = !qbase.empty();
    if (perms_in.size() > 1 || (!perm.empty() && !qlinear && !keeps_layout(n.op_type()))) return;
    if (qlinear) {
      auto end = match_qlinear(n, qbase);
      if (!end) end = match_by_node_name(n, qbase);
      if (end)
        mapped_[n.output(0)] = {*end, false, perm.empty() ? own_layout(n, *end) : perm, false};
      return;
    }
    const std::vector<std::string> bases =
        nchwc ? nchwc_bases(n.op_type())
              : (n.domain().empty() ? std::vector<std::string>{n.op_type()}
                                    : std::vector<std::string>{});
    if (bases.empty()) return;
    auto end = match_chain(n, bases);
    if (!end && !nchwc && !blocked_in) end = match_by_node_name(n, "");
    // ORT drops the QDQ pair around ops that commute with quantization (MaxPool, Reshape...)
    // and runs them on the integers: DequantizeLinear -> X -> QuantizeLinear.
    if (!end && !nchwc && !blocked_in && !widened_in) end = match_qlinear(n, n.op_type());
    // A node fed float32 copies computes in float32 (ORT's Casts sit at the region's borders).
    if (end) mapped_[n.output(0)] = {*end, nchwc || blocked_in, perm, widened_in};
  }

  // The layout ORT's NHWC int8 kernels write whatever their input's mapping says (it may be a
  // value no original one holds: a MaxPool ORT runs on the integers the model dequantized):
  // Transpose(original, [0, 2, ..., 1]). None for other nodes.
  std::vector<int64_t> own_layout(const onnx::NodeProto& n, const std::string& original) const {
    const auto* last = find_attr(n, "channels_last");
    const bool nhwc =
        n.domain() == "com.microsoft" &&
        (n.op_type() == "NhwcMaxPool" || (n.op_type() == "QLinearConv" && last && last->i() != 0));
    const ValueInfo* vi = ix_.info(original);
    if (!nhwc || !vi || !vi->has_shape || vi->dims.size() < 3) return {};
    std::vector<int64_t> perm = {0};
    for (int64_t d = 2; d < static_cast<int64_t>(vi->dims.size()); ++d) perm.push_back(d);
    perm.push_back(1);
    return perm;
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
                            identity ? std::vector<int64_t>{} : composed, in->second.widened};
  }

  // A QLinear<X> node stands for DequantizeLinear -> X -> [Relu | Clip] -> QuantizeLinear, the
  // first DequantizeLinear reading n's first input; or for a node of a QOperator model reading
  // it: the same QLinear<X>, or X on the integers (a MaxPool).
  std::optional<std::string> match_qlinear(const onnx::NodeProto& n, const std::string& base) {
    auto first = mapped_.find(n.input(0));
    if (first == mapped_.end()) return {};
    std::optional<std::pair<std::vector<size_t>, std::string>> match;
    for (size_t c : consumers_of(first->second.original)) {
      const Node& x = ix_.g.nodes[c];
      const bool own = x.op_type == n.op_type() || (x.op_type == base && base == "MaxPool");
      if (taken_.count(c) || !own || x.outputs.size() != 1 || !same_geometry(n, x)) continue;
      if (match) return {};  // two fit: leave it unmapped rather than guess
      match.emplace(std::vector<size_t>{c}, x.outputs[0]);
    }
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
  // `qbase`: the original op type a quantized executed node stands for ("" for a plain node).
  std::optional<std::string> match_by_node_name(const onnx::NodeProto& n,
                                                const std::string& qbase) {
    const bool qlinear = !qbase.empty();
    auto it = node_named_.find(n.output(0));
    if (it == node_named_.end() || taken_.count(it->second)) return {};
    const Node& x = ix_.g.nodes[it->second];
    if (x.outputs.size() != 1) return {};
    std::vector<size_t> members;
    std::optional<std::string> end;
    if (qlinear && x.op_type == qbase) {
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
            !(n.domain() == kOrtNchwcDomain &&
              n.op_type() == "Conv"))  // the Sum input enters later
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
      if (n.domain() == kOrtNchwcDomain && n.op_type() == "Conv" && !extend_conv(n, end, members))
        continue;
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
  std::set<std::string> graph_inputs_;        // the original graph's inputs
};

}  // namespace

std::map<std::string, Mapped> map_executed_values(const Model& original,
                                                  const onnx::ModelProto& optimized) {
  Mapper mapper(original, optimized);
  mapper.run();
  return mapper.mapped();
}

}  // namespace ig

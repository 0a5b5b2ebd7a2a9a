#include "synth/quantize_model.h"

#include <algorithm>
#include <set>

#include "model/onnx_model.h"
#include "model/tensor_proto.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "synth/quantize_util.h"

namespace ig {

namespace {

// What gets quantized: the nodes, the activations (per tensor, in graph order), the weights (per
// channel, with their axis) and the biases.
struct Plan {
  struct Node {
    int index = 0;
    std::string weight, bias;  // the initializers replaced in this node ("" when none)
  };
  std::vector<Node> nodes;
  std::vector<std::string> folded;
  std::vector<std::string> acts;
  std::map<std::string, int> weight_axis;
};

class Planner {
 public:
  Planner(const onnx::ModelProto& m, const QuantizeOptions& o)
      : g_(m.graph()), o_(o), types_(value_types(m)) {
    const auto& g = m.graph();
    for (const auto& t : g.initializer()) inits_[t.name()] = &t;
    for (const auto& i : g.input()) inputs_.insert(i.name());
    for (const auto& o2 : g.output()) outputs_.insert(o2.name());
    for (int i = 0; i < g.node_size(); ++i)
      for (const auto& in : g.node(i).input()) consumers_[in].push_back(i);
  }

  Plan plan() {
    for (int i = 0; i < g_.node_size(); ++i) {
      const auto& n = g_.node(i);
      if (is_blocked(n, o_.block) || !n.domain().empty()) continue;
      const std::string& op = n.op_type();
      if (op == "Conv" || op == "Gemm" || op == "MatMul") {
        plan_weighted(i, n);
      } else if (o_.inputs_only) {
        continue;
      } else if (op == "Add" && n.input_size() == 2 && f32(n.input(0)) && f32(n.input(1)) &&
                 (act(n.input(0)) || act(n.input(1)))) {
        for (const auto& in : n.input())
          if (act(in)) add_act(in);
        plan_.nodes.push_back({i, "", ""});
        add_output(n, true);
      } else if ((op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool") &&
                 n.output_size() == 1 && act(n.input(0)) && f32(n.input(0))) {
        add_act(n.input(0));
        plan_.nodes.push_back({i, "", ""});
        add_output(n, false);
      }
    }
    return std::move(plan_);
  }

 private:
  bool f32(const std::string& v) const {
    auto it = types_.find(v);
    return it != types_.end() && it->second.elem_type == onnx::TensorProto::FLOAT;
  }
  // A constant: an initializer that no graph input can override.
  // PyTorch's exporter shares equal initializers through Identity nodes: those count too.
  const onnx::TensorProto* constant(const std::string& v) const {
    auto it = inits_.find(v);
    if (it != inits_.end()) return inputs_.count(v) ? nullptr : it->second;
    for (const auto& n : g_.node())
      if (n.op_type() == "Identity" && n.output_size() == 1 && n.output(0) == v &&
          n.domain().empty())
        return inits_.count(n.input(0)) ? constant(n.input(0)) : nullptr;
    return nullptr;
  }
  bool act(const std::string& v) const { return !v.empty() && !inits_.count(v); }
  void add_act(const std::string& v) {
    if (std::find(plan_.acts.begin(), plan_.acts.end(), v) == plan_.acts.end())
      plan_.acts.push_back(v);
  }

  // The node's output, or the output of the Relu/Clip that alone reads it (left in place, as
  // ORT's QDQ format keeps it for the runtime to fuse).
  void add_output(const onnx::NodeProto& n, bool fold) {
    const std::string& out = n.output(0);
    if (!f32(out)) return;
    auto c = consumers_.find(out);
    if (fold && !outputs_.count(out) && c != consumers_.end() && c->second.size() == 1) {
      const auto& next = g_.node(c->second[0]);
      if ((next.op_type() == "Relu" || next.op_type() == "Clip") && next.domain().empty() &&
          !is_blocked(next, o_.block) && f32(next.output(0))) {
        plan_.folded.push_back(next.name());
        add_act(next.output(0));
        return;
      }
    }
    add_act(out);
  }

  void plan_weighted(int i, const onnx::NodeProto& n) {
    if (n.input_size() < 2 || !act(n.input(0)) || !f32(n.input(0)) || !f32(n.output(0))) return;
    const std::string& op = n.op_type();
    Plan::Node pn{i, "", ""};
    const onnx::TensorProto* w = constant(n.input(1));
    int axis = -1;
    if (w && w->data_type() == onnx::TensorProto::FLOAT) {
      const int rank = w->dims_size();
      if (op == "Conv" && rank >= 3) axis = 0;
      if (op == "Gemm" && rank == 2) {
        const auto* t = find_attr(n, "transB");
        axis = t && t->i() != 0 ? 0 : 1;
      }
      if (op == "MatMul" && rank >= 2) axis = rank - 1;
    }
    if (axis < 0 && !(op == "MatMul" && act(n.input(1)) && f32(n.input(1)) && !w)) return;
    auto known = plan_.weight_axis.find(w ? w->name() : "");
    if (axis >= 0 && known != plan_.weight_axis.end() && known->second != axis) return;
    add_act(n.input(0));
    if (axis < 0) {
      add_act(n.input(1));  // MatMul of two activations
    } else {
      pn.weight = w->name();
      plan_.weight_axis[pn.weight] = axis;
      const onnx::TensorProto* b = n.input_size() > 2 ? constant(n.input(2)) : nullptr;
      if (b && b->data_type() == onnx::TensorProto::FLOAT && b->dims_size() == 1 &&
          b->dims(0) == w->dims(axis))
        pn.bias = b->name();
    }
    plan_.nodes.push_back(pn);
    if (!o_.inputs_only) add_output(n, true);
  }

  const onnx::GraphProto& g_;
  const QuantizeOptions& o_;
  std::map<std::string, ValueType> types_;
  std::map<std::string, const onnx::TensorProto*> inits_;
  std::set<std::string> inputs_, outputs_;
  std::map<std::string, std::vector<int>> consumers_;
  Plan plan_;
};

void add_init(onnx::GraphProto& g, const Tensor& t, const std::string& name) {
  tensor_to_proto(t, name, g.add_initializer());
}

// Rewrites the graph after the plan: DequantizeLinear for weights and biases in front,
// QuantizeLinear -> DequantizeLinear after each activation's producer.
Status rewrite(onnx::GraphProto& g, const Plan& plan, const std::map<std::string, QParams>& qp,
               const QuantizeOptions& o, QuantizeResult& r) {
  NameSet names(g);
  std::set<std::string> blocked, graph_outputs, graph_inputs;
  for (const auto& n : g.node())
    if (is_blocked(n, o.block)) blocked.insert(n.name());
  for (const auto& v : g.output()) graph_outputs.insert(v.name());
  for (const auto& v : g.input()) graph_inputs.insert(v.name());
  std::map<std::string, Tensor> inits;
  for (const auto& t : g.initializer()) {
    if (!plan.weight_axis.count(t.name())) continue;
    IG_ASSIGN_OR_RETURN(inits[t.name()], tensor_from_proto(t, o.base_dir));
  }
  std::vector<onnx::NodeProto> front;
  std::map<std::string, std::vector<float>> w_scales;
  std::map<std::string, std::string> w_out;
  for (const auto& [w, axis] : plan.weight_axis) {
    ChannelQuant cq = quantize_per_channel(inits.at(w), axis, o.reduce_range);
    const std::string q = names.take(w + "_quantized"), s = names.take(w + "_scale"),
                      z = names.take(w + "_zero_point");
    const auto channels = static_cast<int64_t>(cq.scales.size());
    add_init(g, cq.q, q);
    add_init(g, Tensor::from_vector(cq.scales, {channels}), s);
    add_init(g, Tensor(DType::kInt8, {channels}), z);  // zeros
    w_out[w] = names.take(w + "_DequantizeLinear_Output");
    front.push_back(
        make_node("DequantizeLinear", names.take(w + "_DequantizeLinear"), {q, s, z}, w_out[w]));
    set_int_attr(front.back(), "axis", axis);
    w_scales[w] = std::move(cq.scales);
    ++r.weights;
    r.weight_channels += channels;
  }
  // Per node: the renamed weight and bias inputs.
  std::map<int, std::map<int, std::string>> slot_renames;
  for (const auto& pn : plan.nodes) {
    const auto& n = g.node(pn.index);
    r.quantized_nodes.push_back(n.name());
    if (pn.weight.empty()) continue;
    slot_renames[pn.index][1] = w_out[pn.weight];
    if (pn.bias.empty()) continue;
    const onnx::TensorProto* bp = nullptr;
    for (const auto& t : g.initializer())
      if (t.name() == pn.bias) bp = &t;
    IG_ASSIGN_OR_RETURN(Tensor b, tensor_from_proto(*bp, o.base_dir));
    std::vector<float> b_scales;
    Tensor bq = quantize_bias(b, qp.at(n.input(0)).scale, w_scales[pn.weight], &b_scales);
    const std::string q = names.take(pn.bias + "_quantized"),
                      s = names.take(pn.bias + "_quantized_scale"),
                      z = names.take(pn.bias + "_quantized_zero_point"),
                      out = names.take(pn.bias + "_DequantizeLinear_Output");
    const auto channels = static_cast<int64_t>(b_scales.size());
    add_init(g, bq, q);
    add_init(g, Tensor::from_vector(b_scales, {channels}), s);
    add_init(g, Tensor(DType::kInt32, {channels}), z);
    front.push_back(
        make_node("DequantizeLinear", names.take(pn.bias + "_DequantizeLinear"), {q, s, z}, out));
    set_int_attr(front.back(), "axis", 0);
    slot_renames[pn.index][2] = out;
    ++r.biases;
  }
  // Activations: Q/DQ nodes after their producer; readers renamed.
  std::map<std::string, std::vector<onnx::NodeProto>> after;  // producer output -> Q/DQ nodes
  std::map<std::string, std::string> reader_rename, blocked_rename, producer_rename;
  for (const auto& t : plan.acts) {
    const QParams p = qp.at(t);
    r.activations.push_back({t, 0, 0, p.scale, p.zero_point});
    const std::string s = names.take(t + "_scale"), z = names.take(t + "_zero_point");
    add_init(g, Tensor::scalar(p.scale), s);
    if (o.signed_activations) {
      add_init(g, Tensor::scalar(static_cast<int8_t>(p.zero_point)), z);
    } else {
      add_init(g, Tensor::scalar(static_cast<uint8_t>(p.zero_point)), z);
    }
    std::string q_in = t, dq_out;
    if (graph_outputs.count(t) && !graph_inputs.count(t)) {
      q_in = names.take(t + "_QuantizeLinear_Input");
      producer_rename[t] = q_in;
      blocked_rename[t] = q_in;
      dq_out = t;
    } else {
      dq_out = names.take(t + "_DequantizeLinear_Output");
      reader_rename[t] = dq_out;
    }
    const std::string q_out = names.take(t + "_QuantizeLinear_Output");
    auto& nodes = after[graph_inputs.count(t) ? "" : t];
    nodes.push_back(
        make_node("QuantizeLinear", names.take(t + "_QuantizeLinear"), {q_in, s, z}, q_out));
    nodes.push_back(
        make_node("DequantizeLinear", names.take(t + "_DequantizeLinear"), {q_out, s, z}, dq_out));
  }
  std::vector<onnx::NodeProto> all = front;
  for (auto& n : after[""]) all.push_back(n);
  for (int i = 0; i < g.node_size(); ++i) {
    onnx::NodeProto n = g.node(i);
    const bool is_blocked_node = blocked.count(n.name()) != 0;
    const auto& renames = is_blocked_node ? blocked_rename : reader_rename;
    for (int k = 0; k < n.input_size(); ++k) {
      auto slot = slot_renames.find(i);
      if (slot != slot_renames.end() && slot->second.count(k)) {
        n.set_input(k, slot->second.at(k));
      } else if (auto it = renames.find(n.input(k)); it != renames.end()) {
        n.set_input(k, it->second);
      }
    }
    std::vector<std::string> outs(n.output().begin(), n.output().end());
    for (auto& out : *n.mutable_output())
      if (auto it = producer_rename.find(out); it != producer_rename.end()) out = it->second;
    all.push_back(std::move(n));
    for (const auto& out : outs)
      if (auto it = after.find(out); it != after.end() && !out.empty())
        for (auto& qdq : it->second) all.push_back(qdq);
  }
  // Identity nodes that shared a now quantized initializer and nobody reads any more.
  std::set<std::string> read;
  for (const auto& n : all)
    for (const auto& in : n.input()) read.insert(in);
  g.clear_node();
  for (auto& n : all) {
    if (n.op_type() == "Identity" && !read.count(n.output(0)) && !graph_outputs.count(n.output(0)))
      continue;
    *g.add_node() = std::move(n);
  }
  // Float initializers nothing reads any more.
  read.clear();
  for (const auto& n : g.node())
    for (const auto& in : n.input()) read.insert(in);
  auto* list = g.mutable_initializer();
  for (int i = list->size() - 1; i >= 0; --i)
    if (!read.count(list->Get(i).name()) && !graph_inputs.count(list->Get(i).name()))
      list->DeleteSubrange(i, 1);
  return Status::Ok();
}

Expected<std::map<std::string, TensorRange>> cached_ranges(const onnx::ModelProto& model,
                                                           const std::vector<std::string>& acts,
                                                           const QuantizeOptions& o,
                                                           int64_t* samples) {
  auto* cache = o.range_cache;
  if (cache && std::all_of(acts.begin(), acts.end(),
                           [&](const std::string& t) { return cache->count(t) != 0; })) {
    std::map<std::string, TensorRange> ranges;
    for (const auto& t : acts) ranges[t] = cache->at(t);
    return ranges;
  }
  IG_ASSIGN_OR_RETURN(auto ranges, calibrate_ranges(model, acts, o, samples));
  if (cache)
    for (const auto& [t, r] : ranges) (*cache)[t] = r;
  return ranges;
}

}  // namespace

Expected<QuantizeResult> quantize_model(const onnx::ModelProto& parent, const QuantizeOptions& o) {
  if (const auto* n = quantized_node(parent.graph()))
    return invalid_argument("{}: the model is already quantized: node '{}' is a {}", o.label,
                            n->name(), n->op_type());
  for (const auto& b : o.block) {
    bool found = false;
    for (const auto& n : parent.graph().node()) found |= n.name() == b || n.op_type() == b;
    if (!found)
      return invalid_argument("--block {}: {} has no node or op type of that name", b, o.label);
  }
  QuantizeResult r;
  r.model = parent;
  IG_RETURN_IF_ERROR(raise_opset(r.model, 13, &r.opset_raised).with_context(o.label));
  auto* g = r.model.mutable_graph();
  Plan plan = Planner(r.model, o).plan();
  if (plan.nodes.empty())
    return invalid_argument(
        "{}: nothing to quantize: no float32 Conv, Gemm, MatMul, Add or pool outside --block",
        o.label);
  IG_ASSIGN_OR_RETURN(auto ranges, cached_ranges(r.model, plan.acts, o, &r.samples));
  std::map<std::string, QParams> qp;
  std::set<std::string> softmax_outputs;
  for (const auto& n : g->node())
    if (n.op_type() == "Softmax") softmax_outputs.insert(n.output(0));
  for (const auto& t : plan.acts) {
    // ORT's quantizer fixes a Softmax output's parameters (its range is [0, 1]), and its
    // QLinearSoftmax kernel depends on them: with a calibrated scale it writes zeros.
    qp[t] = softmax_outputs.count(t)
                ? (o.signed_activations ? QParams{1.0f / 128, 0} : QParams{1.0f / 256, 0})
                : activation_qparams(ranges[t].min, ranges[t].max, o.signed_activations);
  }
  IG_RETURN_IF_ERROR(rewrite(*g, plan, qp, o, r));
  for (auto& a : r.activations) {
    a.min = ranges[a.name].min;
    a.max = ranges[a.name].max;
  }
  r.folded = plan.folded;
  stamp_lineage(r.model, Lineage{content_hash(parent), o.seed, {{"quantize", quantize_params(o)}}});
  if (Status st = check_variant(r.model); !st.ok())
    return internal_error("{}: the quantized model fails the ONNX checker: {}", o.label,
                          st.message());
  return r;
}

}  // namespace ig

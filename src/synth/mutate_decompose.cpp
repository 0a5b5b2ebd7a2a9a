// decompose(node=): an operator written as the primitives that define it (issue 57): Softmax as
// Exp(x - max) / ReduceSum, HardSwish as x * HardSigmoid, LayerNormalization as its means, Sqrt
// and Div, Gelu as its Erf or Tanh form. Equal in exact arithmetic, not bit for bit: these are the
// patterns graph optimizers fuse back into one kernel, where their rewrites and defects live.
#include <cmath>
#include <numbers>

#include "inputs/rng.h"
#include "model/tensor_proto.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "synth/quantize_util.h"

namespace ig {

namespace {

float float_attr_or(const onnx::NodeProto& n, const std::string& key, float fallback) {
  const auto* a = find_attr(n, key);
  return a ? a->f() : fallback;
}

// Builds the replacement nodes; the last one writes the decomposed node's output.
class Decomposition {
 public:
  Decomposition(onnx::GraphProto& g, const onnx::NodeProto& node, int64_t opset, int elem_type)
      : g_(g), tag_(fresh_name(g, node.name() + "_decomposed")), opset_(opset), type_(elem_type) {}

  std::string constant(double v) {
    std::string name = tag_ + "_c" + std::to_string(counter_++);
    add_scalar_initializer(g_, name, type_, v);
    return name;
  }
  std::string op(const std::string& type, std::vector<std::string> inputs,
                 const std::string& out = "") {
    const std::string name = tag_ + "_" + std::to_string(nodes_.size());
    nodes_.push_back(make_node(type, name, inputs, out.empty() ? name + "_out" : out));
    return nodes_.back().output(0);
  }
  // A reduction over `axes` keeping them: axes as an input where the opset takes them so
  // (ReduceSum from 13, the others from 18), else as the attribute.
  std::string reduce(const std::string& type, const std::string& x,
                     const std::vector<int64_t>& axes, const std::string& out = "") {
    const bool axes_input = opset_ >= 18 || (type == "ReduceSum" && opset_ >= 13);
    std::string result;
    if (axes_input) {
      const std::string name = tag_ + "_axes" + std::to_string(counter_++);
      tensor_to_proto(Tensor::from_vector(axes, {static_cast<int64_t>(axes.size())}), name,
                      g_.add_initializer());
      result = op(type, {x, name}, out);
    } else {
      result = op(type, {x}, out);
      auto* a = nodes_.back().add_attribute();
      a->set_name("axes");
      a->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : axes) a->add_ints(v);
    }
    set_int_attr(nodes_.back(), "keepdims", 1);
    return result;
  }
  void float_attr(const std::string& key, float v) {
    auto* a = nodes_.back().add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  std::vector<onnx::NodeProto>& nodes() { return nodes_; }

 private:
  onnx::GraphProto& g_;
  std::string tag_;
  int64_t opset_;
  int type_;
  int counter_ = 0;
  std::vector<onnx::NodeProto> nodes_;
};

// Why the node cannot be decomposed here; "" when it can.
std::string why_not(const onnx::ModelProto& model, const onnx::NodeProto& n,
                    const std::map<std::string, ValueType>& types) {
  const int64_t opset = default_opset(model);
  auto t = n.input_size() > 0 ? types.find(n.input(0)) : types.end();
  if (t == types.end() || !is_float_type(t->second.elem_type)) return "no known float input type";
  const std::string& op = n.op_type();
  if (op == "Softmax") return opset >= 13 ? "" : "Softmax before opset 13 flattens to 2-D";
  if (op == "HardSwish") return "";
  if (op == "Gelu") return "";
  if (op == "LayerNormalization") {
    if (t->second.elem_type != onnx::TensorProto::FLOAT) return "LayerNormalization of non-float32";
    if (t->second.rank < 1) return "input rank unknown";
    for (int i = 1; i < n.output_size(); ++i)
      if (!n.output(i).empty()) return "its Mean or InvStdDev output is used";
    return "";
  }
  return "not Softmax, HardSwish, Gelu or LayerNormalization";
}

}  // namespace

Status decompose_node(onnx::ModelProto& model, const Mutation& m) {
  auto it = m.params.find("node");
  if (it == m.params.end()) return invalid_argument("decompose: needs node=");
  IG_ASSIGN_OR_RETURN(int i, node_index(model.graph(), it->second));
  const onnx::NodeProto n = model.graph().node(i);
  const auto types = value_types(model);
  if (const std::string why = why_not(model, n, types); !why.empty())
    return invalid_argument("decompose: {} '{}': {}", n.op_type(), n.name(), why);
  const ValueType& t = types.at(n.input(0));
  auto* g = model.mutable_graph();
  Decomposition d(*g, n, default_opset(model), t.elem_type);
  const std::string& x = n.input(0);
  const std::string& y = n.output(0);
  const auto normalized = [&](int64_t axis) { return axis < 0 ? axis + t.rank : axis; };
  if (n.op_type() == "Softmax") {
    // exp(x - max) / sum: the max keeps exp finite, as every kernel does.
    int64_t axis = int_attr_or(n, "axis", -1);
    if (t.rank >= 0) axis = normalized(axis);
    const std::string e = d.op("Exp", {d.op("Sub", {x, d.reduce("ReduceMax", x, {axis})})});
    d.op("Div", {e, d.reduce("ReduceSum", e, {axis})}, y);
  } else if (n.op_type() == "HardSwish") {
    const std::string hard_sigmoid = d.op("HardSigmoid", {x});
    d.float_attr("alpha", 1.0f / 6.0f);
    d.float_attr("beta", 0.5f);
    d.op("Mul", {x, hard_sigmoid}, y);
  } else if (n.op_type() == "Gelu") {
    std::string inner;
    if (find_attr(n, "approximate") && find_attr(n, "approximate")->s() == "tanh") {
      const std::string x3 = d.op("Mul", {d.op("Mul", {x, x}), x});
      const std::string poly = d.op("Add", {x, d.op("Mul", {x3, d.constant(0.044715)})});
      inner = d.op("Tanh", {d.op("Mul", {poly, d.constant(std::sqrt(2.0 / std::numbers::pi))})});
    } else {
      inner = d.op("Erf", {d.op("Div", {x, d.constant(std::sqrt(2.0))})});
    }
    const std::string half_x = d.op("Mul", {x, d.constant(0.5)});
    d.op("Mul", {half_x, d.op("Add", {inner, d.constant(1.0)})}, y);
  } else {  // LayerNormalization over axes [axis, rank)
    std::vector<int64_t> axes;
    for (int64_t a = normalized(int_attr_or(n, "axis", -1)); a < t.rank; ++a) axes.push_back(a);
    const std::string centred = d.op("Sub", {x, d.reduce("ReduceMean", x, axes)});
    const std::string var = d.reduce("ReduceMean", d.op("Mul", {centred, centred}), axes);
    const std::string sd =
        d.op("Sqrt", {d.op("Add", {var, d.constant(float_attr_or(n, "epsilon", 1e-5f))})});
    const std::string scaled = d.op("Mul", {d.op("Div", {centred, sd}), n.input(1)},
                                    n.input_size() > 2 && !n.input(2).empty() ? "" : y);
    if (n.input_size() > 2 && !n.input(2).empty()) d.op("Add", {scaled, n.input(2)}, y);
  }
  std::vector<onnx::NodeProto> all(g->node().begin(), g->node().end());
  all.erase(all.begin() + i);
  all.insert(all.begin() + i, d.nodes().begin(), d.nodes().end());
  replace_nodes(*g, std::move(all));
  return Status::Ok();
}

std::vector<Mutation> decompose_candidates(const onnx::ModelProto& model, Rng& rng) {
  (void)rng;  // nothing to draw: the node says it all
  const auto types = value_types(model);
  std::vector<Mutation> out;
  for (const auto& n : model.graph().node())
    if (why_not(model, n, types).empty()) out.push_back({"decompose", {{"node", n.name()}}});
  return out;
}

}  // namespace ig

#include "backends/ref/qdq_groups.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "model/value_readers.h"

namespace ig {

namespace {

struct GraphIndex {
  const Graph& graph;
  std::map<std::string, size_t> producer;
  std::map<std::string, int> readers;
  std::set<std::string> outputs;

  explicit GraphIndex(const Graph& g) : graph(g) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const auto& o : g.nodes[i].outputs) producer[o] = i;
      for (const auto& in : node_reads(g.nodes[i])) ++readers[in];
    }
    for (const auto& o : g.outputs) outputs.insert(o.name);
  }
  const Node* produced_by(const std::string& v, const char* op_type) const {
    auto it = producer.find(v);
    if (it == producer.end()) return nullptr;
    const Node& n = graph.nodes[it->second];
    return n.op_type == op_type && n.domain.empty() ? &n : nullptr;
  }
  // Read by exactly one node and not a graph output: a value that can live inside a group.
  bool private_value(const std::string& v) const {
    auto it = readers.find(v);
    return it != readers.end() && it->second == 1 && outputs.count(v) == 0;
  }
  // A value known before the run: an initializer, or a Constant node's value (PyTorch exports
  // its quantized models' scales, zero points and weights so).
  const Tensor* initializer(const std::string& v) const {
    auto it = graph.initializers.find(v);
    if (it != graph.initializers.end()) return &it->second;
    const Node* c = produced_by(v, "Constant");
    return c && c->attr("value") ? &c->attr("value")->t : nullptr;
  }
  // A value that is all zeros by construction: a zero constant, or PyTorch's bias zero point,
  // Cast(ConstantOfShape(shape)) with the default (zero) fill.
  bool zeros(const std::string& v) const {
    if (const Tensor* t = initializer(v)) {
      for (int64_t i = 0; i < t->numel(); ++i)
        if (t->as_int64(i) != 0) return false;
      return true;
    }
    const Node* cast = produced_by(v, "Cast");
    const Node* fill = cast ? produced_by(cast->inputs[0], "ConstantOfShape") : nullptr;
    if (!fill) return false;
    const Attribute* value = fill->attr("value");
    return !value || (value->t.numel() == 1 && value->t.as_double(0) == 0);
  }
};

bool is_8bit(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

// A DequantizeLinear with scale and zero point given as initializers; `out_axis`: the axis of a
// weight of rank `rank` along which the scale may vary (its output channels), -1 for none.
bool plain_dequantize(const GraphIndex& ix, const Node& dq, int64_t out_axis, int64_t rank = 0) {
  if (dq.inputs.size() < 3 || dq.inputs[2].empty()) return false;
  const Tensor* scale = ix.initializer(dq.inputs[1]);
  const Tensor* zp = ix.initializer(dq.inputs[2]);
  if (!scale || !zp || scale->numel() != zp->numel()) return false;
  if (scale->numel() == 1) return scale->rank() <= 1;
  int64_t axis = dq.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  return out_axis >= 0 && scale->rank() == 1 && axis == out_axis;
}

// A Clip's bounds from its attributes (opset < 11) or constant inputs; false when not constant.
bool clip_bounds(const GraphIndex& ix, const Node& clip, float& lo, float& hi) {
  lo = clip.attr_float("min", -INFINITY);
  hi = clip.attr_float("max", INFINITY);
  for (size_t i : {1, 2}) {
    if (clip.inputs.size() <= i || clip.inputs[i].empty()) continue;
    const Tensor* t = ix.initializer(clip.inputs[i]);
    // PyTorch exports ReLU6's bounds as Constant nodes.
    if (const Node* c = ix.produced_by(clip.inputs[i], "Constant"); !t && c && c->attr("value"))
      t = &c->attr("value")->t;
    if (!t || t->numel() != 1) return false;
    (i == 1 ? lo : hi) = static_cast<float>(t->as_double(0));
  }
  return true;
}

// The product a group is built around, and where its weight's output channels lie.
struct Product {
  const Node* node = nullptr;
  int64_t out_axis = 0;  // of the weight
  KernelFn kernel = nullptr;
  const char* fused_op = "";
};

Product product_of(const GraphIndex& ix, const std::string& value) {
  if (const Node* n = ix.produced_by(value, "Conv"))
    return {n, 0, run_qdq_conv_group, "QLinearConv"};
  if (const Node* n = ix.produced_by(value, "MatMul")) return {n, 1, run_qdq_gemm_group, "QGemm"};
  const Node* n = ix.produced_by(value, "Gemm");
  // Gemm groups as the libraries take them: A as it is, alpha = beta = 1.
  if (!n || n->attr_int("transA", 0) != 0 || n->attr_float("alpha", 1.0f) != 1.0f ||
      n->attr_float("beta", 1.0f) != 1.0f)
    return {};
  return {n, n->attr_int("transB", 0) != 0 ? 0 : 1, run_qdq_gemm_group, "QGemm"};
}

// The group that ends at QuantizeLinear `q`, if its pattern matches.
bool match(const GraphIndex& ix, const Node& q, QdqGroup& group, std::vector<size_t>& members) {
  if (q.inputs.size() < 3 || q.inputs[2].empty()) return false;
  const Tensor* ys = ix.initializer(q.inputs[1]);
  const Tensor* yz = ix.initializer(q.inputs[2]);
  if (!ys || !yz || ys->numel() != 1 || yz->numel() != 1 || !is_8bit(yz->dtype())) return false;
  // Relu or Clip before the QuantizeLinear: quantizing is monotone, so they become a clamp of
  // the integers at the quantized bounds (Relu: at the zero point).
  const Node* relu = ix.produced_by(q.inputs[0], "Relu");
  if (!relu) relu = ix.produced_by(q.inputs[0], "Clip");
  float lo = -INFINITY, hi = INFINITY;
  if (relu && relu->op_type == "Relu") lo = 0;
  if (relu && relu->op_type == "Clip" && !clip_bounds(ix, *relu, lo, hi)) return false;
  const std::string& conv_out = relu ? relu->inputs[0] : q.inputs[0];
  if (relu && !ix.private_value(q.inputs[0])) return false;
  const Product product = product_of(ix, conv_out);
  const Node* conv = product.node;
  if (!conv || !ix.private_value(conv_out) || conv->inputs.size() < 2) return false;
  const Node* dx = ix.produced_by(conv->inputs[0], "DequantizeLinear");
  const Node* dw = ix.produced_by(conv->inputs[1], "DequantizeLinear");
  if (!dx || !dw || !plain_dequantize(ix, *dx, -1)) return false;
  const Tensor* w = ix.initializer(dw->inputs[0]);
  if (!w || !is_8bit(w->dtype()) || !ix.private_value(conv->inputs[1]) ||
      !plain_dequantize(ix, *dw, product.out_axis, w->rank()))
    return false;
  if (conv->op_type != "Conv" && w->rank() != 2) return false;
  const Node* db = nullptr;
  if (conv->inputs.size() > 2 && !conv->inputs[2].empty()) {
    db = ix.produced_by(conv->inputs[2], "DequantizeLinear");
    if (!db || !ix.private_value(conv->inputs[2]) || db->inputs.size() < 1) return false;
    const Tensor* b = ix.initializer(db->inputs[0]);
    // QLinearConv's bias is int32 at scale x_scale * w_scale with zero point 0, which is how
    // quantizers write it; the libraries use the integers as they are.
    if (!b || b->dtype() != DType::kInt32 || b->rank() > 1) return false;
    if (db->inputs.size() > 2 && !db->inputs[2].empty() && !ix.zeros(db->inputs[2])) return false;
  }
  Node& f = group.fused;
  f.name = conv->name;
  f.op_type = product.fused_op;
  group.kernel = product.kernel;
  f.attributes = conv->attributes;
  for (auto [key, bound] : {std::pair{"clip_min", lo}, std::pair{"clip_max", hi}}) {
    if (std::isinf(bound)) continue;
    Attribute a;
    a.kind = Attribute::Kind::kFloat;
    a.f = bound;
    f.attributes[key] = a;
  }
  f.inputs = {dx->inputs[0], dx->inputs[1], dx->inputs[2], dw->inputs[0],
              dw->inputs[1], dw->inputs[2], q.inputs[1],   q.inputs[2]};
  if (db) f.inputs.push_back(db->inputs[0]);
  f.outputs = {q.outputs[0]};
  f.index = q.index;
  group.report_as = &q;
  // The activation's DequantizeLinear joins the group only where nothing else reads it.
  if (ix.private_value(conv->inputs[0])) members.push_back(dx->index);
  members.push_back(dw->index);
  if (db) members.push_back(db->index);
  members.push_back(conv->index);
  if (relu) members.push_back(relu->index);
  members.push_back(q.index);
  return true;
}

}  // namespace

QdqPlan plan_qdq_groups(const Graph& graph) {
  QdqPlan plan;
  plan.role.assign(graph.nodes.size(), -1);
  plan.reads = reads_by_node(graph);
  GraphIndex ix(graph);
  for (const auto& q : graph.nodes) {
    if (q.op_type != "QuantizeLinear" || !q.domain.empty() || q.outputs.size() != 1) continue;
    QdqGroup group;
    std::vector<size_t> members;
    if (!match(ix, q, group, members)) continue;
    std::sort(members.begin(), members.end());
    const int g = static_cast<int>(plan.groups.size());
    for (size_t m : members) {
      plan.role[m] = -2;
      plan.reads[m].clear();
      group.covers += (group.covers.empty() ? "" : ",") +
                      (graph.nodes[m].name.empty() ? "#" + std::to_string(m) : graph.nodes[m].name);
    }
    plan.role[q.index] = g;
    plan.reads[q.index] = node_reads(group.fused);
    plan.groups.push_back(std::move(group));
  }
  return plan;
}

}  // namespace ig

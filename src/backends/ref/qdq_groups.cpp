#include "backends/ref/qdq_groups.h"

#include <algorithm>
#include <cmath>

#include "model/qdq_group.h"
#include "model/value_readers.h"

namespace ig {

namespace {

// What the integer kernels read of a group: the graph's producers and the values known before the
// run (initializers, and Constant nodes' values: PyTorch exports its quantized models' scales, zero
// points and weights so).
struct Known {
  const QdqGraphIndex& index;
  TensorLookup values;

  const Node* produced_by(const std::string& v, const char* op_type) const {
    const auto p = index.producer(v);
    if (!p) return nullptr;
    const Node& n = index.graph().nodes[*p];
    return n.op_type == op_type && n.domain.empty() ? &n : nullptr;
  }
  // A value that is all zeros by construction: a zero constant, or PyTorch's bias zero point,
  // Cast(ConstantOfShape(shape)) with the default (zero) fill.
  bool zeros(const std::string& v) const {
    if (const Tensor* t = values(v)) {
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

// A DequantizeLinear with scale and zero point known before the run; `out_axis`: the axis of a
// weight of rank `rank` along which the scale may vary (its output channels), -1 for none.
bool plain_dequantize(const Known& k, const Node& dq, int64_t out_axis, int64_t rank = 0) {
  if (dq.inputs.size() < 3 || dq.inputs[2].empty()) return false;
  if (dq.attr_int("block_size", 0) != 0) return false;  // blocks: no integer kernel here
  const Tensor* scale = k.values(dq.inputs[1]);
  const Tensor* zp = k.values(dq.inputs[2]);
  if (!scale || !zp || scale->numel() != zp->numel()) return false;
  if (scale->numel() == 1) return scale->rank() <= 1;
  int64_t axis = dq.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  return out_axis >= 0 && scale->rank() == 1 && axis == out_axis;
}

// A Clip's bounds from its attributes (opset < 11) or constant inputs; false when not constant.
bool clip_bounds(const Known& k, const Node& clip, float& lo, float& hi) {
  lo = clip.attr_float("min", -INFINITY);
  hi = clip.attr_float("max", INFINITY);
  for (size_t i : {1, 2}) {
    if (clip.inputs.size() <= i || clip.inputs[i].empty()) continue;
    // PyTorch exports ReLU6's bounds as Constant nodes.
    const Tensor* t = k.values(clip.inputs[i]);
    if (!t || t->numel() != 1) return false;
    (i == 1 ? lo : hi) = static_cast<float>(t->as_double(0));
  }
  return true;
}

// The weight axis of the group's product along which its output channels lie, its kernel and
// the fused operator it runs as; nullptr kernel for a product the integer kernels do not take.
struct Product {
  int64_t out_axis = 0;
  KernelFn kernel = nullptr;
  const char* fused_op = "";
};

Product product_of(const Node& n) {
  if (n.op_type == "Conv") return {0, run_qdq_conv_group, "QLinearConv"};
  if (n.op_type == "MatMul") return {1, run_qdq_gemm_group, "QGemm"};
  // Gemm groups as the libraries take them: A as it is, alpha = beta = 1.
  if (n.attr_int("transA", 0) != 0 || n.attr_float("alpha", 1.0f) != 1.0f ||
      n.attr_float("beta", 1.0f) != 1.0f)
    return {};
  return {n.attr_int("transB", 0) != 0 ? 0 : 1, run_qdq_gemm_group, "QGemm"};
}

// The group `grp` as one integer kernel, if its quantization parameters are of the kinds the
// kernels take. A group without a QuantizeLinear writes float: the int32 sum times
// x_scale * w_scale, as oneDNN's int8 kernels with an f32 destination compute it.
bool fuse(const Known& k, const QdqGroup& grp, IntKernelGroup& group) {
  const Graph& g = k.index.graph();
  const Node* q = grp.q ? &g.nodes[*grp.q] : nullptr;
  if (q) {
    if (q->inputs.size() < 3 || q->inputs[2].empty() || q->outputs.size() != 1) return false;
    const Tensor* ys = k.values(q->inputs[1]);
    const Tensor* yz = k.values(q->inputs[2]);
    if (!ys || !yz || ys->numel() != 1 || yz->numel() != 1 || !is_8bit(yz->dtype())) return false;
  }
  // Relu or Clip: before a QuantizeLinear they become a clamp of the integers at the quantized
  // bounds (Relu: at the zero point), quantizing being monotone; on a float output, of the floats.
  float lo = -INFINITY, hi = INFINITY;
  if (grp.act) {
    const Node& act = g.nodes[*grp.act];
    if (act.op_type == "Relu") lo = 0;
    if (act.op_type == "Clip" && !clip_bounds(k, act, lo, hi)) return false;
  }
  const Node& conv = g.nodes[grp.head];
  const Product product = product_of(conv);
  if (!product.kernel) return false;
  const Node& dx = g.nodes[grp.x.node];
  const Node& dw = g.nodes[grp.w.node];
  if (!plain_dequantize(k, dx, -1)) return false;
  const Tensor* w = k.values(dw.inputs[0]);
  if (!w || !is_8bit(w->dtype()) || !grp.w.owned ||
      !plain_dequantize(k, dw, product.out_axis, w->rank()))
    return false;
  if (conv.op_type != "Conv" && w->rank() != 2) return false;
  const bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  // A float bias initializer (NNCF writes one) joins the sum in the accumulator's units, as
  // oneDNN adds it (ops/qdq_gemm.cpp, AccBias).
  std::string float_bias;
  if (has_bias && !grp.b) {
    const Tensor* fb = k.values(conv.inputs[2]);
    if (!fb || fb->dtype() != DType::kFloat32 || fb->rank() != 1) return false;
    float_bias = conv.inputs[2];
  }
  if (grp.b && !grp.b->owned) return false;
  const Node* db = grp.b ? &g.nodes[grp.b->node] : nullptr;
  if (db) {
    const Tensor* b = db->inputs.empty() ? nullptr : k.values(db->inputs[0]);
    // QLinearConv's bias is int32 at scale x_scale * w_scale with zero point 0, which is how
    // quantizers write it; the libraries use the integers as they are.
    if (!b || b->dtype() != DType::kInt32 || b->rank() > 1) return false;
    if (db->inputs.size() > 2 && !db->inputs[2].empty() && !k.zeros(db->inputs[2])) return false;
  }
  const size_t last = grp.q ? *grp.q : grp.act ? *grp.act : grp.head;
  const Node& out = g.nodes[last];
  if (out.outputs.empty() || out.outputs[0].empty()) return false;
  Node& f = group.fused;
  f.name = conv.name;
  f.op_type = product.fused_op;
  group.kernel = product.kernel;
  f.attributes = conv.attributes;
  for (auto [key, bound] : {std::pair{"clip_min", lo}, std::pair{"clip_max", hi}}) {
    if (std::isinf(bound)) continue;
    Attribute a;
    a.kind = Attribute::Kind::kFloat;
    a.f = bound;
    f.attributes[key] = a;
  }
  // No y_scale and y_zero_point (inputs 6 and 7): the kernel writes float.
  f.inputs = {dx.inputs[0],
              dx.inputs[1],
              dx.inputs[2],
              dw.inputs[0],
              dw.inputs[1],
              dw.inputs[2],
              q ? q->inputs[1] : std::string(),
              q ? q->inputs[2] : std::string()};
  if (db) f.inputs.push_back(db->inputs[0]);
  if (!float_bias.empty()) f.inputs.push_back(float_bias);
  f.outputs = {out.outputs[0]};
  f.index = out.index;
  group.report_as = &out;
  group.at = last;
  return true;
}

}  // namespace

IntKernelPlan plan_int_kernels(const Model& model) {
  const Graph& graph = model.graph;
  IntKernelPlan plan;
  plan.role.assign(graph.nodes.size(), -1);
  plan.reads = reads_by_node(graph);
  const QdqGraphIndex index(graph);
  const Known known{index, initializers_of(model)};
  for (size_t head = 0; head < graph.nodes.size(); ++head) {
    const auto grp = find_qdq_group(index, head);
    IntKernelGroup group;
    if (!grp || !fuse(known, *grp, group)) continue;
    const int g = static_cast<int>(plan.groups.size());
    for (size_t m : grp->nodes) {
      plan.role[m] = -2;
      plan.reads[m].clear();
      group.covers += (group.covers.empty() ? "" : ",") +
                      (graph.nodes[m].name.empty() ? "#" + std::to_string(m) : graph.nodes[m].name);
    }
    plan.role[group.at] = g;
    plan.reads[group.at] = node_reads(group.fused);
    plan.groups.push_back(std::move(group));
  }
  return plan;
}

}  // namespace ig

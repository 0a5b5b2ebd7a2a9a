#include "backends/library/qoperator_group.h"

#include <algorithm>

namespace ig {

namespace {

// Where each operand sits among the node's inputs.
struct QoperatorInputs {
  size_t y_scale = 6, y_zp = 7, bias = 8;
};

std::string input_or_empty(const Node& n, size_t i) {
  return i < n.inputs.size() ? n.inputs[i] : std::string();
}

Node dequantize(const std::string& name, std::vector<std::string> in, std::string out) {
  while (!in.empty() && in.back().empty()) in.pop_back();
  Node dq;
  dq.name = name;
  dq.op_type = "DequantizeLinear";
  dq.inputs = std::move(in);
  dq.outputs = {std::move(out)};
  return dq;
}

// x_scale * w_scale[c] rounded once to float, as ONNX Runtime's quantizer scales the bias.
Expected<Tensor> bias_scale(const Node& n, const TensorLookup& known) {
  const Tensor* xs = known(n.inputs[1]);
  const Tensor* ws = known(n.inputs[4]);
  if (!xs || !ws)
    return unsupported("{}: its bias needs constant scales ('{}', '{}')", n.label(), n.inputs[1],
                       n.inputs[4]);
  if (xs->numel() != 1 || ws->numel() < 1)
    return unsupported("{}: x_scale {} is no scalar or w_scale {} is empty", n.label(),
                       xs->describe(), ws->describe());
  Tensor out(DType::kFloat32, {ws->numel()});
  for (int64_t c = 0; c < ws->numel(); ++c)
    out.data<float>()[c] = static_cast<float>(xs->as_double(0) * ws->as_double(c));
  if (ws->numel() == 1) out = out.reshaped({});
  return out;
}

}  // namespace

bool is_qoperator_head(const Node& n) {
  return (n.domain.empty() && (n.op_type == "QLinearConv" || n.op_type == "QLinearMatMul")) ||
         (n.domain == "com.microsoft" && n.op_type == "QGemm");
}

TensorLookup QoperatorGroup::lookup(const TensorLookup& values) const {
  return [this, values](const std::string& name) -> const Tensor* {
    auto it = made.find(name);
    return it != made.end() ? &it->second : values(name);
  };
}

Expected<QoperatorGroup> qoperator_group(const Node& node, const Model& model,
                                         const TensorLookup& known) {
  if (!is_qoperator_head(node))
    return invalid_argument("{}: not a QOperator node with a QDQ form", node.label());
  const bool gemm = node.op_type == "QGemm";
  if (node.inputs.size() < (gemm ? 6u : 8u) || node.outputs.empty())
    return invalid_argument("{}: {} inputs, {} outputs", node.label(), node.inputs.size(),
                            node.outputs.size());
  if (gemm && (node.attr_float("alpha", 1.0f) != 1.0f || node.attr_int("transA", 0) != 0))
    return unsupported("{}: alpha != 1 or transA has no QDQ form here", node.label());
  const QoperatorInputs at = gemm ? QoperatorInputs{7, 8, 6} : QoperatorInputs{};
  const std::string& name = node.name.empty() ? node.op_type : node.name;
  QoperatorGroup out;
  out.model.path = model.path;
  out.model.ir_version = model.ir_version;
  out.model.opsets = model.opsets;
  out.model.opsets[""] = std::max<int64_t>(13, model.opset_for(""));
  std::vector<Node>& nodes = out.model.graph.nodes;
  nodes.push_back(
      dequantize(name + ":x", {node.inputs[0], node.inputs[1], node.inputs[2]}, name + "#x_dq"));
  Node dw =
      dequantize(name + ":w", {node.inputs[3], node.inputs[4], node.inputs[5]}, name + "#w_dq");
  // Per-channel weight scales run along the output channel: Conv's axis 0, a MatMul's or
  // Gemm's column (axis 0 of a transposed B).
  Attribute axis;
  axis.kind = Attribute::Kind::kInt;
  axis.i = node.op_type == "QLinearConv" || (gemm && node.attr_int("transB", 0) != 0) ? 0 : 1;
  dw.attributes["axis"] = axis;
  nodes.push_back(std::move(dw));
  out.group.x = {0, true};
  out.group.w = {1, true};
  Node head;
  head.name = node.name;
  head.op_type = node.op_type == "QLinearConv" ? "Conv" : gemm ? "Gemm" : "MatMul";
  head.attributes = node.attributes;
  head.attributes.erase("alpha");
  head.inputs = {name + "#x_dq", name + "#w_dq"};
  if (const std::string b = input_or_empty(node, at.bias); !b.empty()) {
    IG_ASSIGN_OR_RETURN(Tensor scale, bias_scale(node, known));
    out.made[name + "#b_scale"] = std::move(scale);
    out.group.b = QdqInput{nodes.size(), true};
    nodes.push_back(dequantize(name + ":b", {b, name + "#b_scale"}, name + "#b_dq"));
    head.inputs.push_back(name + "#b_dq");
  }
  const std::string y_scale = input_or_empty(node, at.y_scale);
  head.outputs = {y_scale.empty() ? node.outputs[0] : name + "#acc"};
  out.group.head = nodes.size();
  nodes.push_back(std::move(head));
  if (!y_scale.empty()) {
    Node q;
    q.name = node.name;
    q.op_type = "QuantizeLinear";
    q.inputs = {name + "#acc", y_scale, input_or_empty(node, at.y_zp)};
    if (q.inputs.back().empty()) q.inputs.pop_back();
    q.outputs = {node.outputs[0]};
    out.group.q = nodes.size();
    nodes.push_back(std::move(q));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].index = i;
    out.group.nodes.push_back(i);
  }
  ValueInfo y;
  y.name = node.outputs[0];
  out.model.graph.outputs.push_back(y);
  return out;
}

Status check_qoperator_group(const Node& node, const Model& model, const QdqCheck& check) {
  const TensorLookup init = initializers_of(model);
  IG_ASSIGN_OR_RETURN(QoperatorGroup q, qoperator_group(node, model, init));
  return check(q.model, q.group, q.lookup(init));
}

}  // namespace ig

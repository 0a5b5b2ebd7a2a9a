// The individual mutators of mutate.h: each edits the graph in place from its parameters alone.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "inputs/rng.h"
#include "model/tensor_proto.h"
#include "synth/convert_precision.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "synth/quantize_model.h"
#include "synth/quantize_util.h"

namespace ig {

namespace {

Status swap_activation(onnx::ModelProto& model, const Mutation& m) {
  IG_ASSIGN_OR_RETURN(std::string name, mutation_param(m, "node"));
  IG_ASSIGN_OR_RETURN(std::string to, mutation_param(m, "to"));
  IG_ASSIGN_OR_RETURN(int i, node_index(model.graph(), name));
  auto* n = model.mutable_graph()->mutable_node(i);
  if (!is_activation(n->op_type()) || !is_activation(to))
    return invalid_argument("activation: {} -> {} is not an activation swap", n->op_type(), to);
  n->set_op_type(to);
  n->clear_attribute();  // every listed activation's attributes have defaults
  return Status::Ok();
}

Status swap_pool(onnx::ModelProto& model, const Mutation& m) {
  IG_ASSIGN_OR_RETURN(std::string name, mutation_param(m, "node"));
  IG_ASSIGN_OR_RETURN(std::string to, mutation_param(m, "to"));
  IG_ASSIGN_OR_RETURN(int i, node_index(model.graph(), name));
  auto* n = model.mutable_graph()->mutable_node(i);
  if (!is_swappable_pool(*n) || (to != "MaxPool" && to != "AveragePool") || to == n->op_type())
    return invalid_argument("pool: {} -> {} is not a pooling swap", n->op_type(), to);
  // Keep the attributes both share; the others have no counterpart.
  const std::vector<std::string> common = {"auto_pad", "ceil_mode", "kernel_shape", "pads",
                                           "strides"};
  onnx::NodeProto copy = *n;
  n->clear_attribute();
  for (const auto& a : copy.attribute())
    if (std::find(common.begin(), common.end(), a.name()) != common.end()) *n->add_attribute() = a;
  n->set_op_type(to);
  return Status::Ok();
}

Status insert_identity(onnx::ModelProto& model, const Mutation& m) {
  IG_ASSIGN_OR_RETURN(std::string value, mutation_param(m, "value"));
  IG_ASSIGN_OR_RETURN(std::string how, mutation_param(m, "how"));
  auto types = value_types(model);
  auto it = types.find(value);
  if (it == types.end() || !is_float_type(it->second.elem_type))
    return invalid_argument("insert: value '{}' has no known float type", value);
  auto* g = model.mutable_graph();
  const std::string tag = fresh_name(*g, value + "_" + how);
  std::vector<onnx::NodeProto> nodes;
  auto node = [&](const std::string& op, std::vector<std::string> in, const std::string& out) {
    onnx::NodeProto n;
    n.set_op_type(op);
    n.set_name(tag + "_" + std::to_string(nodes.size()));
    for (auto& s : in) n.add_input(s);
    n.add_output(out);
    nodes.push_back(n);
    return &nodes.back();
  };
  const std::string out = tag + "_out";
  if (how == "identity") {
    node("Identity", {value}, out);
  } else if (how == "add0" || how == "mul1") {
    const std::string c = tag + "_c";
    add_scalar_initializer(*g, c, it->second.elem_type, how == "add0" ? 0.0 : 1.0);
    node(how == "add0" ? "Add" : "Mul", {value, c}, out);
  } else if (how == "transpose2") {
    const int rank = it->second.rank;
    if (rank < 2) return invalid_argument("insert: transpose2 needs rank >= 2 at '{}'", value);
    onnx::AttributeProto perm;
    perm.set_name("perm");
    perm.set_type(onnx::AttributeProto::INTS);
    for (int d = rank - 1; d >= 0; --d) perm.add_ints(d);  // a reversal is its own inverse
    *node("Transpose", {value}, tag + "_t")->add_attribute() = perm;
    *node("Transpose", {tag + "_t"}, out)->add_attribute() = perm;
  } else if (how == "reshape2") {
    // Flattened and shaped back by its own Shape: no dim needs to be known.
    const std::string flat = tag + "_flat";
    tensor_to_proto(Tensor::from_vector<int64_t>({-1}, {1}), flat, g->add_initializer());
    node("Reshape", {value, flat}, tag + "_r");
    node("Shape", {value}, tag + "_shape");
    node("Reshape", {tag + "_r", tag + "_shape"}, out);
  } else if (how == "cast2") {
    // Through float64 and back: exact for every float type.
    onnx::AttributeProto wide, back;
    wide.set_name("to");
    wide.set_type(onnx::AttributeProto::INT);
    wide.set_i(onnx::TensorProto::DOUBLE);
    back = wide;
    back.set_i(it->second.elem_type);
    *node("Cast", {value}, tag + "_wide")->add_attribute() = wide;
    *node("Cast", {tag + "_wide"}, out)->add_attribute() = back;
  } else if (how == "split2" || how == "slice2") {
    IG_ASSIGN_OR_RETURN(std::string axis, mutation_param(m, "axis"));
    IG_ASSIGN_OR_RETURN(nodes, split_round_trip(*g, default_opset(model), value, it->second, how,
                                                std::stoll(axis), tag, out));
  } else {
    return invalid_argument("insert: unknown how '{}'", how);
  }
  return splice_after(*g, value, out, nodes);
}

Status reinit(onnx::ModelProto& model, const Mutation& m) {
  IG_ASSIGN_OR_RETURN(std::string name, mutation_param(m, "init"));
  IG_ASSIGN_OR_RETURN(std::string dist, mutation_param(m, "dist"));
  IG_ASSIGN_OR_RETURN(std::string a_text, mutation_param(m, "a"));
  IG_ASSIGN_OR_RETURN(std::string b_text, mutation_param(m, "b"));
  IG_ASSIGN_OR_RETURN(std::string seed_text, mutation_param(m, "seed"));
  const double a = std::stod(a_text), b = std::stod(b_text);
  for (auto& init : *model.mutable_graph()->mutable_initializer()) {
    if (init.name() != name) continue;
    IG_ASSIGN_OR_RETURN(Tensor old, tensor_from_proto(init));
    if (!is_float_type(static_cast<int>(old.dtype())))
      return invalid_argument("reinit: initializer '{}' is not floating point", name);
    Rng rng(std::stoull(seed_text));
    std::vector<double> v(static_cast<size_t>(old.numel()));
    for (double& x : v) x = dist == "normal" ? rng.normal(a, b) : rng.uniform(a, b);
    IG_ASSIGN_OR_RETURN(Tensor t, tensor_from_doubles(old.dtype(), old.shape(), v));
    tensor_to_proto(t, name, &init);
    return Status::Ok();
  }
  return not_found("reinit: no initializer named '{}'", name);
}

// quantize(...) and convert(...): the whole-model derivations of `infergap quantize` / `convert`.
Status quantize_in_place(onnx::ModelProto& model, const std::map<std::string, std::string>& p) {
  IG_ASSIGN_OR_RETURN(QuantizeOptions o, quantize_options_from(p));
  IG_ASSIGN_OR_RETURN(QuantizeResult r, quantize_model(model, o));
  model = std::move(r.model);
  return Status::Ok();
}

Status convert_in_place(onnx::ModelProto& model, const std::map<std::string, std::string>& p) {
  IG_ASSIGN_OR_RETURN(ConvertOptions o, convert_options_from(p));
  IG_ASSIGN_OR_RETURN(ConvertResult r, convert_precision(model, o));
  model = std::move(r.model);
  return Status::Ok();
}

}  // namespace

Status apply_mutation(onnx::ModelProto& model, const Mutation& m) {
  Status st = invalid_argument("unknown mutation kind '{}'", m.kind);
  try {
    if (m.kind == "activation") st = swap_activation(model, m);
    if (m.kind == "pool") st = swap_pool(model, m);
    if (m.kind == "insert") st = insert_identity(model, m);
    if (m.kind == "reinit") st = reinit(model, m);
    if (m.kind == "attr") st = mutate_attribute(model, m);
    if (m.kind == "inject") st = inject_input(model, m);
    if (m.kind == "extract") st = extract_node(model, m);
    if (m.kind == "cast") st = cast_model(model, m.params.count("to") ? m.params.at("to") : "");
    if (m.kind == "quantize") st = quantize_in_place(model, m.params);
    if (m.kind == "convert") st = convert_in_place(model, m.params);
    if (m.kind == "castspan") st = cast_span(model, m.params);
    if (m.kind == "padsplit") st = split_pads(model, m);
    if (m.kind == "decompose") st = decompose_node(model, m);
    if (m.kind == "fuse") st = fuse_nodes(model, m);
    if (m.kind == "edge") st = edge_input(model, m);
    if (m.kind == "window") st = window_pool(model, m);
    if (m.kind == "bnunfold") st = unfold_batch_norm(model, m);
    if (m.kind == "bnfold") st = fold_batch_norm(model, m);
    if (m.kind == "constsub") st = constant_subgraph(model, m);
  } catch (const std::exception& e) {  // std::stod and friends on a hand-edited lineage
    st = invalid_argument("{}: bad parameter: {}", m.kind, e.what());
  }
  return st.ok() ? st : st.with_context(m.to_string());
}

}  // namespace ig

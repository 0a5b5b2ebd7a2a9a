// padsplit(node=, value=): a Conv's or pool's own padding moved into an explicit Pad before it
// (issue 57). Graph optimizers fold such a Pad back into the next operator's pads, and that fold
// is valid only for some pad values: ONNX Runtime folds a zero Pad into MaxPool's -inf padding.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inputs/rng.h"
#include "model/tensor_proto.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "synth/quantize_util.h"

namespace ig {

namespace {

// Why the node's padding cannot move into a Pad that keeps the model's result exactly; "" when it
// can. MaxPool's ceil_mode drops windows that would start in the padding, which explicit padding
// would keep; AveragePool without count_include_pad divides by the pixels inside the input.
std::string why_not_splittable(const onnx::ModelProto& model, const onnx::NodeProto& n) {
  if (n.op_type() != "Conv" && n.op_type() != "MaxPool" && n.op_type() != "AveragePool")
    return "not a Conv, MaxPool or AveragePool";
  if (default_opset(model) < 11) return "Pad takes its pads as an input from opset 11";
  if (n.output_size() != 1) return "a MaxPool with Indices";
  if (const auto* a = find_attr(n, "auto_pad"); a && a->s() != "NOTSET" && !a->s().empty())
    return "auto_pad sets the padding";
  const auto* pads = find_attr(n, "pads");
  bool any = false;
  if (pads)
    for (int64_t p : pads->ints()) any |= p != 0;
  if (!any) return "no padding";
  if (int_attr_or(n, "ceil_mode", 0) != 0) return "ceil_mode";
  if (n.op_type() == "AveragePool" && int_attr_or(n, "count_include_pad", 0) == 0)
    return "count_include_pad=0";
  return "";
}

// The node that writes `value`, or nullptr (a graph input or initializer).
const onnx::NodeProto* producer_of(const onnx::GraphProto& g, const std::string& value) {
  for (const auto& p : g.node())
    for (const auto& o : p.output())
      if (o == value) return &p;
  return nullptr;
}

// The value a Pad needs to keep the node's result: zero for Conv and AveragePool (its
// count_include_pad=1 averages zeros in); for MaxPool zero where a Relu feeds it (every window
// holds a value >= 0, so padding with 0 or -inf gives the same maximum), else -inf.
std::string pad_value_for(const onnx::GraphProto& g, const onnx::NodeProto& n) {
  if (n.op_type() != "MaxPool") return "0";
  const onnx::NodeProto* p = producer_of(g, n.input(0));
  return p && p->op_type() == "Relu" ? "0" : "-inf";
}

}  // namespace

Status split_pads(onnx::ModelProto& model, const Mutation& m) {
  auto node_it = m.params.find("node");
  auto value_it = m.params.find("value");
  if (node_it == m.params.end() || value_it == m.params.end())
    return invalid_argument("padsplit: needs node= and value=");
  const std::string& value_text = value_it->second;
  if (value_text != "0" && value_text != "-inf")
    return invalid_argument("padsplit: value must be 0 or -inf, not '{}'", value_text);
  IG_ASSIGN_OR_RETURN(int i, node_index(model.graph(), node_it->second));
  const onnx::NodeProto target = model.graph().node(i);
  if (const std::string why = why_not_splittable(model, target); !why.empty())
    return invalid_argument("padsplit: {} '{}': {}", target.op_type(), target.name(), why);
  const auto types = value_types(model);
  auto type = types.find(target.input(0));
  if (type == types.end() || type->second.rank < 3 || !is_float_type(type->second.elem_type))
    return invalid_argument("padsplit: input '{}' has no known float type and rank",
                            target.input(0));
  const int rank = type->second.rank;
  const auto& pads = find_attr(target, "pads")->ints();
  const int spatial = rank - 2;
  if (pads.size() != 2 * spatial)
    return invalid_argument("padsplit: {} pads for {} spatial dims", pads.size(), spatial);

  auto* g = model.mutable_graph();
  const std::string tag = fresh_name(*g, target.name() + "_padsplit");
  // ONNX Pad's pads: every axis' begin, then every axis' end; batch and channels unpadded.
  std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
  for (int d = 0; d < spatial; ++d) {
    full[static_cast<size_t>(2 + d)] = pads[d];
    full[static_cast<size_t>(rank + 2 + d)] = pads[spatial + d];
  }
  tensor_to_proto(Tensor::from_vector(full, {static_cast<int64_t>(full.size())}), tag + "_pads",
                  g->add_initializer());
  add_scalar_initializer(*g, tag + "_value", type->second.elem_type,
                         value_text == "0" ? 0.0 : -std::numeric_limits<double>::infinity());
  onnx::NodeProto pad;
  pad.set_op_type("Pad");
  pad.set_name(tag);
  pad.add_input(target.input(0));
  pad.add_input(tag + "_pads");
  pad.add_input(tag + "_value");
  pad.add_output(tag + "_out");
  onnx::NodeProto edited = target;
  edited.set_input(0, tag + "_out");
  edited.clear_attribute();
  for (const auto& a : target.attribute())
    if (a.name() != "pads") *edited.add_attribute() = a;
  std::vector<onnx::NodeProto> nodes(g->node().begin(), g->node().end());
  nodes[static_cast<size_t>(i)] = edited;
  nodes.insert(nodes.begin() + i, pad);
  replace_nodes(*g, std::move(nodes));
  return Status::Ok();
}

std::vector<Mutation> pad_split_candidates(const onnx::ModelProto& model, Rng& rng) {
  // One node per op type, so each fold an optimizer may make gets an even chance: otherwise
  // ResNet-18's 20 Convs drown its one MaxPool, where ONNX Runtime's fold is invalid.
  std::map<std::string, std::vector<const onnx::NodeProto*>> by_op;
  for (const auto& n : model.graph().node())
    if (why_not_splittable(model, n).empty()) by_op[n.op_type()].push_back(&n);
  std::vector<Mutation> out;
  for (const auto& [op, nodes] : by_op) {
    const onnx::NodeProto& n = *nodes[rng.below(nodes.size())];
    out.push_back({"padsplit", {{"node", n.name()}, {"value", pad_value_for(model.graph(), n)}}});
  }
  return out;
}

std::optional<Mutation> pad_split_follow_up(const onnx::ModelProto& model, const Mutation& applied,
                                            Rng& rng) {
  if (applied.kind != "padsplit" || applied.params.at("value") != "0") return std::nullopt;
  const auto& g = model.graph();
  auto node = node_index(g, applied.params.at("node"));
  if (!node.ok() || g.node(*node).op_type() != "MaxPool") return std::nullopt;
  const onnx::NodeProto* pad = producer_of(g, g.node(*node).input(0));
  const onnx::NodeProto* relu = pad ? producer_of(g, pad->input(0)) : nullptr;
  if (!relu || relu->op_type() != "Relu") return std::nullopt;
  static const std::vector<std::string> negative_range = {"LeakyRelu", "Elu", "Selu", "Tanh",
                                                          "Softsign"};
  return Mutation{
      "activation",
      {{"node", relu->name()}, {"to", negative_range[rng.below(negative_range.size())]}}};
}

}  // namespace ig

// window(node=,count_include_pad=0|1): a padded pool at a graph output made an AveragePool with
// a 1x1 window, its padding, strides and ceil_mode kept (issue 57). The border windows then lie
// wholly in the padding. ONNX defines them: without count_include_pad the average of no pixel is
// 0 / 0, NaN; with it, the average of zeros. Kernels answer otherwise: ONNX Runtime and ATen refuse
// padding that reaches past the window, oneDNN 2.6 cannot create the primitive without
// count_include_pad, OpenCV computes another output shape. A MaxPool is not made: the maximum of
// no value is undefined (ONNX's reference fails), so no platform could be wrong. The attribute
// mutation reaches this only when it draws kernel 1 on a padded average pool, too rarely for a
// campaign to count on.
#include "inputs/rng.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "synth/quantize_util.h"

namespace ig {

namespace {

// Why the node cannot take a 1x1 window; "" when it can.
std::string why_no_window(const onnx::GraphProto& g, const onnx::NodeProto& n) {
  if (!is_swappable_pool(n)) return "not a MaxPool or AveragePool with one output";
  if (!is_graph_output(g, n.output(0))) return "its output feeds other nodes";
  if (const auto* a = find_attr(n, "auto_pad"); a && !a->s().empty() && a->s() != "NOTSET")
    return "auto_pad sets the padding";
  const auto* pads = find_attr(n, "pads");
  bool any = false;
  if (pads)
    for (int64_t p : pads->ints()) any |= p > 0;
  if (!any) return "no padding";
  return "";
}

}  // namespace

Status window_pool(onnx::ModelProto& model, const Mutation& m) {
  IG_ASSIGN_OR_RETURN(std::string name, mutation_param(m, "node"));
  IG_ASSIGN_OR_RETURN(std::string include, mutation_param(m, "count_include_pad"));
  if (include != "0" && include != "1")
    return invalid_argument("window: count_include_pad must be 0 or 1, not '{}'", include);
  IG_ASSIGN_OR_RETURN(int i, node_index(model.graph(), name));
  onnx::NodeProto* n = model.mutable_graph()->mutable_node(i);
  if (const std::string why = why_no_window(model.graph(), *n); !why.empty())
    return invalid_argument("window: {} '{}': {}", n->op_type(), name, why);
  const onnx::NodeProto old = *n;
  const auto& pads = find_attr(old, "pads")->ints();
  n->set_op_type("AveragePool");
  n->clear_attribute();
  for (const auto& a : old.attribute())
    if (a.name() == "pads" || a.name() == "strides" || a.name() == "ceil_mode")
      *n->add_attribute() = a;
  onnx::AttributeProto* count = n->add_attribute();
  count->set_name("count_include_pad");
  count->set_type(onnx::AttributeProto::INT);
  count->set_i(include == "1" ? 1 : 0);
  onnx::AttributeProto* kernel = n->add_attribute();
  kernel->set_name("kernel_shape");
  kernel->set_type(onnx::AttributeProto::INTS);
  for (int d = 0; d < pads.size() / 2; ++d) kernel->add_ints(1);
  return reinfer_shapes(model);
}

std::vector<Mutation> window_candidates(const onnx::ModelProto& model, Rng& rng) {
  std::vector<Mutation> out;
  for (const auto& n : model.graph().node())
    if (why_no_window(model.graph(), n).empty())
      out.push_back(
          {"window", {{"node", n.name()}, {"count_include_pad", rng.below(2) ? "1" : "0"}}});
  return out;
}

}  // namespace ig

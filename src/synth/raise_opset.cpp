#include "synth/raise_opset.h"

#include <onnx/onnx_pb.h>
#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <set>
#include <string>

#include "model/shape_inference.h"
#include "synth/quantize_util.h"

namespace ig {

namespace {

// Reduce operators whose `axes` attribute became an input at opset 18 (ReduceSum did so at 13).
const std::set<std::string>& reduce_ops_18() {
  static const std::set<std::string> ops = {"ReduceL1",        "ReduceL2",   "ReduceLogSum",
                                            "ReduceLogSumExp", "ReduceMax",  "ReduceMean",
                                            "ReduceMin",       "ReduceProd", "ReduceSumSquare"};
  return ops;
}

// The IR version that first carries each opset past 17 (ONNX's Versioning.md).
int64_t ir_for_opset(int64_t opset) { return opset >= 19 ? 9 : 8; }

// A Constant node holding `axes` as int64, named after the node it feeds.
onnx::NodeProto axes_constant(const onnx::NodeProto& reduce, const onnx::AttributeProto& axes,
                              const std::string& out) {
  onnx::NodeProto c = make_node("Constant", reduce.name() + "/axes", {}, out);
  auto* v = c.add_attribute();
  v->set_name("value");
  v->set_type(onnx::AttributeProto::TENSOR);
  auto* t = v->mutable_t();
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(axes.ints_size());
  for (int64_t a : axes.ints()) t->add_int64_data(a);
  return c;
}

// Rewrites `g` (and its subgraphs) for opset 18 and up; refuses what cannot be carried over.
Status carry_graph(onnx::GraphProto& g, int64_t to, NameSet& names) {
  std::vector<onnx::NodeProto> nodes;
  nodes.reserve(static_cast<size_t>(g.node_size()));
  for (auto& n : *g.mutable_node()) {
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) IG_RETURN_IF_ERROR(carry_graph(*a.mutable_g(), to, names));
      for (auto& sub : *a.mutable_graphs()) IG_RETURN_IF_ERROR(carry_graph(sub, to, names));
    }
    if (!n.domain().empty() && n.domain() != "ai.onnx") {
      nodes.push_back(std::move(n));
      continue;
    }
    if ((n.op_type() == "DFT" || n.op_type() == "GridSample") && to >= 20)
      return unsupported("{} '{}' changed its signature at opset 20; not raised by hand",
                         n.op_type(), n.name());
    const auto* axes = find_attr(n, "axes");
    if (reduce_ops_18().count(n.op_type()) && axes) {
      if (n.input_size() < 1)
        return invalid_argument("{} '{}' has no input", n.op_type(), n.name());
      const std::string out = names.take(n.name() + "_axes");
      nodes.push_back(axes_constant(n, *axes, out));
      onnx::NodeProto r = n;
      r.clear_attribute();
      for (const auto& a : n.attribute())
        if (a.name() != "axes") *r.add_attribute() = a;
      while (r.input_size() > 1) r.mutable_input()->RemoveLast();
      r.add_input(out);
      nodes.push_back(std::move(r));
      continue;
    }
    nodes.push_back(std::move(n));
  }
  g.clear_node();
  for (auto& n : nodes) *g.add_node() = std::move(n);
  return Status::Ok();
}

}  // namespace

Status raise_opset(onnx::ModelProto& model, int64_t opset) {
  const int64_t from = default_opset(model);
  if (from >= opset) return Status::Ok();
  if (opset > kMaxRaisedOpset)
    return unsupported("opset {} is beyond what infergap raises a model to ({})", opset,
                       kMaxRaisedOpset);
  const int64_t converter_max = std::min<int64_t>(opset, libonnx_opset(""));
  if (from < converter_max) {
    try {
      model = onnx::version_conversion::ConvertVersion(model, static_cast<int>(converter_max));
    } catch (const std::exception& e) {
      return invalid_argument("ONNX's version converter cannot raise opset {} to {}: {}", from,
                              converter_max, e.what());
    }
  }
  if (opset <= converter_max) return Status::Ok();
  NameSet names(model.graph());
  IG_RETURN_IF_ERROR(carry_graph(*model.mutable_graph(), opset, names)
                         .with_context(fmt::format("raising opset {} to {}", from, opset)));
  for (auto& o : *model.mutable_opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") o.set_version(opset);
  model.set_ir_version(std::max(model.ir_version(), ir_for_opset(opset)));
  return Status::Ok();
}

}  // namespace ig

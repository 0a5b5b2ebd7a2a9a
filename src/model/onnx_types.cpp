#include "model/onnx_types.h"

#include <onnx/onnx_pb.h>

#include "core/dtype.h"
#include "model/graph.h"

namespace ig {

namespace {

std::string label(const onnx::NodeProto& n) {
  return n.name().empty() ? n.op_type() : fmt::format("{} '{}'", n.op_type(), n.name());
}

}  // namespace

std::string node_label(const onnx::NodeProto& np, int index) {
  Node n;
  n.name = np.name();
  n.op_type = np.op_type();
  n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
  n.outputs.assign(np.output().begin(), np.output().end());
  n.index = static_cast<size_t>(index);
  return n.label();
}

std::string node_using(const onnx::GraphProto& g, const std::string& value) {
  for (const auto& n : g.node()) {
    for (const auto& o : n.output())
      if (o == value) return "node " + label(n);
  }
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (i == value) return "node " + label(n);
  }
  return "";
}

std::optional<TypeUse> first_type_use(const onnx::GraphProto& g,
                                      const std::function<bool(int32_t)>& pick) {
  for (const auto& t : g.initializer()) {
    if (pick(t.data_type()))
      return TypeUse{t.data_type(), node_using(g, t.name()), "initializer '" + t.name() + "'"};
  }
  for (const auto* list : {&g.input(), &g.output(), &g.value_info()}) {
    for (const auto& vi : *list) {
      if (!vi.type().has_tensor_type()) continue;
      const int32_t type = vi.type().tensor_type().elem_type();
      if (pick(type)) return TypeUse{type, node_using(g, vi.name()), "value '" + vi.name() + "'"};
    }
  }
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      const bool type_attr = a.name() == "to" || a.name() == "dtype" || a.name() == "output_dtype";
      const std::optional<int32_t> type = a.type() == onnx::AttributeProto::TENSOR
                                              ? std::optional(a.t().data_type())
                                          : type_attr && a.type() == onnx::AttributeProto::INT
                                              ? std::optional(static_cast<int32_t>(a.i()))
                                              : std::nullopt;
      if (type && pick(*type))
        return TypeUse{*type, "node " + label(n), "attribute '" + a.name() + "'"};
    }
  }
  return std::nullopt;
}

Status check_lacked_types(const onnx::GraphProto& g) {
  auto use = first_type_use(g, [](int32_t t) { return lacked_onnx_type(t).has_value(); });
  if (!use) return Status::Ok();
  return unsupported("unsupported type {} in {} ({})", *lacked_onnx_type(use->type),
                     use->where.empty() ? "the graph" : use->where, use->what);
}

}  // namespace ig

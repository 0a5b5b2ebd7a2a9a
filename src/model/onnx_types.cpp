#include "model/onnx_types.h"

#include <onnx/onnx_pb.h>

#include "core/dtype.h"

namespace ig {

namespace {

std::string label(const onnx::NodeProto& n) {
  return n.name().empty() ? n.op_type() : fmt::format("{} '{}'", n.op_type(), n.name());
}

Status lacked(std::string_view type, const std::string& where, const std::string& what) {
  return unsupported("unsupported type {} in {} ({})", type, where.empty() ? "the graph" : where,
                     what);
}

}  // namespace

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

Status check_lacked_types(const onnx::GraphProto& g) {
  for (const auto& t : g.initializer()) {
    if (auto type = lacked_onnx_type(t.data_type()))
      return lacked(*type, node_using(g, t.name()), "initializer '" + t.name() + "'");
  }
  for (const auto* list : {&g.input(), &g.output(), &g.value_info()}) {
    for (const auto& vi : *list) {
      if (!vi.type().has_tensor_type()) continue;
      if (auto type = lacked_onnx_type(vi.type().tensor_type().elem_type()))
        return lacked(*type, node_using(g, vi.name()), "value '" + vi.name() + "'");
    }
  }
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      const bool type_attr = a.name() == "to" || a.name() == "dtype" || a.name() == "output_dtype";
      auto type = a.type() == onnx::AttributeProto::TENSOR ? lacked_onnx_type(a.t().data_type())
                  : type_attr && a.type() == onnx::AttributeProto::INT
                      ? lacked_onnx_type(static_cast<int32_t>(a.i()))
                      : std::nullopt;
      if (type) return lacked(*type, "node " + label(n), "attribute '" + a.name() + "'");
    }
  }
  return Status::Ok();
}

}  // namespace ig

// Element types a model uses, found before conversion: those infergap lacks (float6; core/dtype.h)
// so that the error names the node that holds them, not just a number, and those the linked
// libonnx's checker does not know (float8, int4, ...; shape_inference.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/status.h"

namespace onnx {
class GraphProto;
class NodeProto;
}  // namespace onnx

namespace ig {

// The same words as Node::label ("Conv 'conv1'", "Conv (node #3)"), for the node at `index` of
// a graph that is still a proto.
std::string node_label(const onnx::NodeProto& node, int index);

// Where `g` itself (not its subgraphs) first uses an element type `pick` picks: initializers,
// declared value types, tensor attributes and the type attributes to / dtype / output_dtype.
struct TypeUse {
  int32_t type;
  std::string where;  // "node Cast 'c'", or "" when no node reads or writes it
  std::string what;   // "initializer 'z'", "value 'y'", "attribute 'to'"
};
std::optional<TypeUse> first_type_use(const onnx::GraphProto& g,
                                      const std::function<bool(int32_t)>& pick);

// kUnsupported "unsupported type float6e2m3 in node QuantizeLinear 'q' (input 'z')" for the first
// lacked type in `g` itself (subgraphs are checked when they are converted).
Status check_lacked_types(const onnx::GraphProto& g);

// "node Conv 'c'" for the first node of `g` that produces or reads `value`; "" when none does.
std::string node_using(const onnx::GraphProto& g, const std::string& value);

}  // namespace ig

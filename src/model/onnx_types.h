// Element types a model may use that infergap lacks (float8, int4, ...; core/dtype.h), found
// before conversion so the error names the node that holds them, not just a number.
#pragma once

#include <string>

#include "core/status.h"

namespace onnx {
class GraphProto;
}

namespace ig {

// kUnsupported "unsupported type int4 in node QuantizeLinear 'q' (input 'z')" for the first
// lacked type in `g` itself (subgraphs are checked when they are converted): initializers,
// declared value types, tensor attributes and the type attributes to / dtype / output_dtype.
Status check_lacked_types(const onnx::GraphProto& g);

// "node Conv 'c'" for the first node of `g` that produces or reads `value`; "" when none does.
std::string node_using(const onnx::GraphProto& g, const std::string& value);

}  // namespace ig

// ONNX Runtime's QDQS8ToU8 transform (x86) holds an s8 quantized value as u8 with its zero point
// raised by 128: the same integers plus 128, under the original name. Read back from the executed
// graph, such a value is the model's int8 value after an exact shift; anything else in the other
// 8-bit type is not the model's value and is not shown.
#pragma once

#include <map>
#include <string>

#include "model/graph.h"

namespace onnx {
class GraphProto;
}

namespace ig {

// Whether `held` (a value of the optimized graph, `producer` its nodes by output) is the int8
// first output of `made` (a node of `model`) held so: both nodes write quantized integers with a
// per-tensor zero point, the original's int8 z and the optimized one's uint8 z + 128.
bool held_as_shifted_u8(const Model& model, const Node& made, const onnx::GraphProto& optimized,
                        const std::map<std::string, int>& producer, const std::string& held);

// The int8 values a shifted uint8 tensor holds: each minus 128.
Tensor unshift_u8(const Tensor& t);

}  // namespace ig

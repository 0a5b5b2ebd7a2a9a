// ONNX Runtime's QDQS8ToU8 transform (x86) holds an s8 quantized value as u8 with its zero point
// raised by 128: the same integers plus 128, under the original name. Read back from the executed
// graph, such a value is the model's int8 value after an exact shift; anything else in the other
// 8-bit type is not the model's value and is not shown.
#pragma once

#include <map>
#include <string>

#include "model/graph.h"
#include "model/qdq_group.h"

namespace onnx {
class GraphProto;
class TensorProto;
}  // namespace onnx

namespace ig {

// Tells which values of ORT's optimized graph hold a value of the original model so; made once
// for a pair of graphs (their constants indexed once).
class S8ShiftCheck {
 public:
  S8ShiftCheck(const Model& original, const onnx::GraphProto& optimized);
  // Whether `held` (a value of the optimized graph, `producer` its nodes by output) is the int8
  // first output of `made` (a node of the original) held so: both nodes write quantized
  // integers with a per-tensor zero point, the original's int8 z and the optimized one's uint8
  // z + 128.
  bool held_shifted(const Node& made, const std::map<std::string, int>& producer,
                    const std::string& held) const;

 private:
  TensorLookup original_constants_;
  const onnx::GraphProto& optimized_;
  std::map<std::string, const onnx::TensorProto*> optimized_initializers_;
};

// The int8 values a shifted uint8 tensor holds: each minus 128.
Tensor unshift_u8(const Tensor& t);

}  // namespace ig

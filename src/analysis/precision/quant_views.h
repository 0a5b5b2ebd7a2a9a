// How to read a float value of a QDQ model back from its quantized form. Integer platforms (ONNX
// Runtime's QLinearConv, oneDNN and XNNPACK groups, ref with qdq=int) trace a fused group as its
// QuantizeLinear output, never the float value the group computed; that value, dequantized with
// the QuantizeLinear's own scale and zero point, is what the next layer reads.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>

#include "tensor/tensor.h"

namespace ig {

struct QuantizedView {
  std::string q_value;  // the QuantizeLinear output
  std::string q_node;
  int q_index = -1;  // its index in the graph
  double scale = 1;
  int64_t zero_point = 0;
};

// By the float value a QuantizeLinear reads, for the QuantizeLinear nodes whose scale and zero
// point are scalar initializers (per-tensor activations); the first such reader of each value.
std::map<std::string, QuantizedView> quantized_views(const onnx::GraphProto& g);

// (q - zero_point) * scale as float32, computed in double (exact for 8-bit q).
Tensor dequantize_view(const Tensor& q, const QuantizedView& view);

}  // namespace ig

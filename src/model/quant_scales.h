// Quantized operators' constant scales, checked when a model loads: a scale of 0, negative, NaN or
// Inf makes every platform's arithmetic meaningless (a library given 1 / 0 computes garbage and
// says ok), so such a model is refused before anything runs, the same way on every platform.
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "core/status.h"

namespace onnx {
class ModelProto;
class NodeProto;
}  // namespace onnx

namespace ig {

// The formal name of input `input` of `node` in its operator's ONNX schema at `opset` ("y_scale"),
// or "" when no schema names it (ai.onnx and ONNX Runtime's registered contrib operators).
std::string formal_input_name(const std::string& domain, const std::string& op_type, int64_t opset,
                              size_t input);

// Every constant input of a quantized operator (QuantizeLinear, DequantizeLinear, QLinear*, QGemm)
// in the main graph whose formal name ends in "scale" (y_scale, w_scale, com.microsoft's
// QLinearAdd's C_scale, ...) is finite and above 0; else invalid_argument naming the node, the
// input and the element, as "QLinearMatMul 'qmm': b_scale 'bs' is 0 (element 0); a scale must be
// finite and above 0".
Status check_constant_scales(const onnx::ModelProto& model);

// The names of the constants check_constant_scales reads (initializers or Constant outputs):
// what a mutator must not redraw as if it were a weight.
std::set<std::string> constant_scale_names(const onnx::ModelProto& model);

}  // namespace ig

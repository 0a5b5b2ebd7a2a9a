// A QOperator node (QLinearConv, QLinearMatMul, com.microsoft's QGemm) as the QDQ group its
// integer kernel computes: DequantizeLinear of the data, of the weights and of the int32 bias (at
// scale x_scale * w_scale, zero point 0), the float head, a QuantizeLinear. The libraries' int8
// kernels for QDQ groups (qdq_checks.h) then run ONNX Runtime's QOperator models natively, with
// their own checks and refusals, and nothing is expanded in the model others see.
#pragma once

#include <map>
#include <string>

#include "backends/library/qdq_checks.h"
#include "backends/library/qdq_group.h"
#include "core/status.h"

namespace ig {

// QLinearConv, QLinearMatMul (ai.onnx) or QGemm (com.microsoft).
bool is_qoperator_head(const Node& node);

struct QoperatorGroup {
  // The group's nodes, reading the QOperator node's own input names and writing its output.
  Model model;
  QdqGroup group;
  // Values the group reads beyond the node's inputs (the bias scale), by name.
  std::map<std::string, Tensor> made;
  // `values` with the made tensors added.
  TensorLookup lookup(const TensorLookup& values) const;
};

// The group of `node` (is_qoperator_head) in `model`; kUnsupported naming the node where it has
// no such form (QGemm with alpha != 1 or transA, a bias whose scales `known` does not hold).
Expected<QoperatorGroup> qoperator_group(const Node& node, const Model& model,
                                         const TensorLookup& known);

// A library's support check of `node` (is_qoperator_head): its group, checked by `check` on the
// model's initializers; the library's own reason when it refuses.
Status check_qoperator_group(const Node& node, const Model& model, const QdqCheck& check);

}  // namespace ig

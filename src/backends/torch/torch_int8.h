// Int8 QDQ groups (backends/library/qdq_group.h) as PyTorch's quantized operators, the ones
// torch.ao.quantization's converted modules call: Conv as quantized::conv2d (conv2d_relu with a
// Relu), Gemm/MatMul as quantized::linear (linear_relu), weights prepacked by conv2d_prepack /
// linear_prepack for the engine the `qengine` knob picks (QNNPACK, FBGEMM or oneDNN, as
// torch.backends.quantized.engine). The integers go in exactly (_make_per_tensor_quantized_tensor
// / _make_per_channel_quantized_tensor); the int32 bias goes in as PyTorch's float bias,
// b * x_scale * w_scale[c], which the prepacked kernel quantizes back (exact below 2^23).
#pragma once

#include <functional>

#include "backends/library/qdq_checks.h"
#include "backends/torch/torch_ops.h"

namespace ig::torchb {

// Ok when PyTorch's quantized operators take the group, checking what `known` holds; else
// kUnsupported naming the node and why.
Status check_int8_group(const Model& model, const QdqGroup& grp, const TensorLookup& known);

using Int8Plan = QdqPlan;

// The groups whose head `native` accepts and whose checks pass on the initializers.
Int8Plan plan_int8(const Model& model, const std::function<bool(const Node&)>& native);

// The group's QuantizeLinear output (u8, NCHW or [M, N]) on the engine set in ATen's context.
Expected<OpResult> run_int8_group(const Model& model, const QdqGroup& grp,
                                  const TensorLookup& values);

}  // namespace ig::torchb

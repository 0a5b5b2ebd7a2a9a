// XNNPACK's integer operators for int8 QDQ groups (backends/library/qdq_group.h): Conv as
// convolution2d_nhwc_qc8 (per-channel weights) or _qs8 (per-tensor), Gemm/MatMul as
// fully_connected_nc_qs8 (per-tensor; per-channel as a 1x1 qc8 convolution). u8 activations are
// shifted to s8 (q - 128 with zero point - 128: exact), as XNNPACK's qs8/qc8 take s8 data with
// s8 weights and its qu8 operators want u8 weights. On x86 this snapshot requantizes in fp32
// (xnn_init_qs8_conv_minmax_fp32_*): float(acc) * float(x_s * w_s / y_s), rounded to nearest
// even, plus the zero point, clamped.
#pragma once

#include <functional>

#include "backends/library/qdq_checks.h"
#include "backends/xnnpack/xnnpack_ops.h"

namespace ig::xnnpack {

// Ok when XNNPACK's int8 operators take the group, checking what `known` holds; else
// kUnsupported naming the node and why (a group without a QuantizeLinear is refused: XNNPACK's
// int8 operators write integers).
Status check_int8_group(const Model& model, const QdqGroup& grp, const TensorLookup& known);

using Int8Plan = QdqPlan;

// The groups whose head `native` accepts and whose checks pass on the initializers.
Int8Plan plan_int8(const Model& model, const std::function<bool(const Node&)>& native);

// The group's QuantizeLinear output (u8 or s8, NCHW), its tensors read through `values`.
Expected<OpResult> run_int8_group(Ctx& c, const Model& model, const QdqGroup& grp,
                                  const TensorLookup& values);

}  // namespace ig::xnnpack

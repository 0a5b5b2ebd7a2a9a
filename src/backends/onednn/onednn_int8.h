// oneDNN's integer kernels: a QDQ group (library/qdq_group.h) as one int8 convolution or matmul,
// and a QuantizeLinear / DequantizeLinear on its own as a reorder with scales and zero points.
#pragma once

#include "backends/onednn/onednn_common.h"
#include "backends/onednn/qdq_check.h"

namespace ig::onednn {

// The group's output (the QuantizeLinear's integers, or the head's or Relu's floats without
// one). Reads its tensors through `values`; the note names the kernel ("int8 u8s8 jit:avx2").
Expected<OpResult> run_qdq_group(Ctx& c, const Model& model, const QdqGroup& grp,
                                 const TensorLookup& values);

// What the primitive cache must tell apart between runs of one group: its tensors' types and
// shapes, and the values of its scales and zero points (they are compiled into the primitive).
std::string qdq_cache_key(const Model& model, const QdqGroup& grp, const TensorLookup& values);

// `in` converted to `to` by a reorder: dst = scale * (in - src_zp) + dst_zp, saturated and
// rounded to nearest even; scales per tensor (one) or along `axis`.
Expected<OpResult> reorder_scaled(Ctx& c, const Tensor& in, DType to,
                                  const std::vector<float>& scales, int axis, int32_t src_zp,
                                  int32_t dst_zp);

}  // namespace ig::onednn

// What oneDNN's int8 kernels take of a QDQ group (backends/library/qdq_group.h): u8/s8
// per-tensor activations, s8 weights per tensor or per output channel with zero point 0, an int32
// bias with zero point 0, a u8/s8 per-tensor QuantizeLinear. Reasons name the node.
#pragma once

#include <optional>

#include "backends/library/qdq_group.h"
#include "core/status.h"

namespace ig::onednn {

// find_library_qdq_group checked for oneDNN: nullopt when the head does not read its data and
// weights through DequantizeLinear (an fp32 node); kUnsupported, naming the node, for a QDQ group
// oneDNN's int8 kernels cannot take. Checks what `known` holds (dtypes, scales, zero points).
Expected<std::optional<QdqGroup>> qdq_group_at(const Model& model, size_t head,
                                               const TensorLookup& known);

// The checks of qdq_group_at on a group already found (a run checks its tensors again).
Status check_qdq_group(const Model& model, const QdqGroup& grp, const TensorLookup& known);

// Ok when a QuantizeLinear / DequantizeLinear outside a group runs as a oneDNN reorder (u8/s8,
// DequantizeLinear also s32; per-tensor or per-axis scales; one zero point), checking what
// `known` holds; else kUnsupported with the reason.
Status check_lone_qdq(const Node& node, const TensorLookup& known);

}  // namespace ig::onednn

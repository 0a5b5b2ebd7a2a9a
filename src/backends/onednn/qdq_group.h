// The int8 QDQ groups oneDNN runs as one integer primitive, as ONNX Runtime's quantizer writes
// them: DequantizeLinear(x: u8/s8, per-tensor) and DequantizeLinear(w: s8, per-tensor or per
// output channel, zero point 0), optionally DequantizeLinear(bias: int32, zero point 0), into a
// Conv, Gemm or MatMul, optionally a Relu, optionally a QuantizeLinear (u8/s8, per-tensor).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "core/status.h"
#include "model/graph.h"

namespace ig::onednn {

// A DequantizeLinear the head reads.
struct QdqInput {
  size_t node = 0;
  // Its output is read by the head only and is no graph output: it joins the group, which reads
  // its integers. Otherwise it runs on its own and the group quantizes its output again (exact:
  // (q - zp) * s divided by s rounds back to q).
  bool owned = false;
};

struct QdqGroup {
  size_t head = 0;  // Conv, Gemm or MatMul
  QdqInput x, w;
  std::optional<QdqInput> b;  // bias from an int32 DequantizeLinear
  std::optional<size_t> relu, q;
  std::vector<size_t> nodes;  // owned DequantizeLinears, head, relu, q: in graph order
};

// A tensor by value name, or nullptr when not known (yet): the model's initializers when
// planning, the run's values when running.
using TensorLookup = std::function<const Tensor*(const std::string&)>;

// The group headed by main-graph node `head`: nullopt when the head does not read its data and
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

// The initializers of `model` as a lookup.
TensorLookup initializers_of(const Model& model);

}  // namespace ig::onednn

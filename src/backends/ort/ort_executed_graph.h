// ORT's executed graph: the model as ONNX Runtime optimized it (fusions such as FusedConv,
// QDQ -> QLinearConv, the NCHWc layout of opt=all), read back from the file its session saved and
// mapped onto the original model's nodes, so that a trace shows the values the optimized run
// computed instead of those of an unfused copy.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace onnx {
class ModelProto;
}

namespace ig {

struct ExecutedPlan {
  // Per original main-graph node, per output: the exposed graph output holding the value the
  // optimized run computed, or "" when the optimized graph has no such value (fused away).
  std::vector<std::vector<std::string>> fetch_of;
  // Per original node: the fused group it closes (covers) and what ORT ran for it (note).
  std::vector<NodeReport> reports;
  std::vector<std::string> fetch;  // every exposed name, in the order to fetch
  int graph_outputs = 0;           // the optimized graph's own outputs, first among its outputs
  size_t nchwc_values = 0;         // values recovered from the blocked NCHWc layout
  size_t permuted_values = 0;      // values recovered from a transposed layout (NHWC kernels)
  // Exposed values ORT holds as u8 where the model has s8 (ort_s8_shift.h): shifted back.
  std::set<std::string> shifted;
};

// Whether a value of `dt` can leave onnxruntime-node's session: its JavaScript binding has no
// float8, float4, int4 or int2 tensors, so such values are not exposed (their nodes have no
// captured value on ort; the DequantizeLinear after them does).
inline bool ort_node_carries(DType dt) { return !is_narrow(dt); }

// Maps `optimized` (the model ORT's session saved after optimizing `original`) onto `original`
// and makes each recovered value a graph output of `optimized`: a value under its original name
// as it is, an NCHWc value (renamed by ORT) through an added ReorderOutput node into NCHW, a
// value ORT keeps transposed (its NHWC QLinearConv) through an added Transpose back. A
// node matches only where the match is unambiguous; the others stay unmapped (fused away).
Expected<ExecutedPlan> expose_executed_graph(const Model& original, onnx::ModelProto& optimized);

// Leaves `exposed` (as expose_executed_graph made it) with its own graph outputs and those
// exposed outputs in `keep`, and without the added layout nodes that no kept output needs. ORT
// keeps every graph output of a run alive to its end, fetched or not: a graph exposing ViT-B/16's
// values held 330 MB more.
void keep_exposed(const ExecutedPlan& plan, const std::set<std::string>& keep,
                  onnx::ModelProto& exposed);

}  // namespace ig

// A derived model's layers lined up with its float parent's values, and the model that measures
// the error each layer makes on its own ("born here"): every layer fed its parent's inputs.
//
// A layer is a node of the derived model, other than QuantizeLinear, DequantizeLinear and Cast,
// whose output has a value of the same name in the parent, together with the nodes between it and
// the nearest such values upstream (the Q/DQ pairs, weight dequantization, casts). Those upstream
// values are the layer's boundary: in the born-here model they are graph inputs, fed the parent's
// values converted to the derived model's type, so only the layer's own arithmetic differs.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/precision/quant_views.h"
#include "core/status.h"
#include "tensor/tensor.h"

namespace ig {

struct PrecisionLayer {
  std::string value;                  // the layer's output, named as in the parent
  std::string node, op_type;          // the derived model's node producing it
  std::vector<int> nodes;             // derived graph indices of the layer's nodes, in order
  std::vector<std::string> boundary;  // values entering it that the parent has
  std::vector<std::string> members;   // its nodes other than Q/DQ/Cast (a fused group: several)
  // Set when the derived model quantizes the output: the layer is measured after that
  // QuantizeLinear (dequantized), the value the next layer reads and integer platforms trace.
  std::optional<QuantizedView> view;
};

// The layers of `derived` whose output is in `shared` (values both runs traced, graph inputs
// included), in graph order. Layers holding a subgraph (If, Loop, Scan) are left out. `views`:
// quantized_views(derived).
std::vector<PrecisionLayer> match_layers(const onnx::GraphProto& derived,
                                         const std::set<std::string>& shared,
                                         const std::map<std::string, QuantizedView>& views);

// The born-here model: each layer's nodes copied with its internal values renamed, reading its
// boundary from graph inputs and writing `born_output_name(k)` (the QuantizeLinear output with a
// view). `types` gives each boundary and output value's type and shape in the derived model (from
// its traced run).
Expected<onnx::ModelProto> born_here_model(const onnx::ModelProto& derived,
                                           const std::vector<PrecisionLayer>& layers,
                                           const std::map<std::string, Tensor>& types);
std::string born_output_name(const PrecisionLayer& layer, size_t k);

// The born-here model's feeds: every boundary value of the parent's run, converted to the type
// the derived model has there. An error names a boundary value the parent did not trace.
Expected<std::map<std::string, Tensor>> born_here_feeds(const std::vector<PrecisionLayer>& layers,
                                                        const std::map<std::string, Tensor>& parent,
                                                        const std::map<std::string, Tensor>& types);

}  // namespace ig

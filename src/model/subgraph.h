// A model made of some of another model's nodes: `extract` makes one model per node fed the values
// that reached it, the self-check re-runs a span of nodes alone.
#pragma once

#include <onnx/onnx_pb.h>

#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "tensor/tensor.h"

namespace ig {

// `parent` with only the nodes that produce one of `produced` (in their order), the initializers
// they read, `inputs` as graph inputs and `outputs` as graph outputs. Opsets, IR version and
// model-local functions are kept. A node that reads a value which is neither an input, an
// initializer nor computed by a kept node is an error naming it; so is a node that holds a
// subgraph (If, Loop, Scan) unless `keep_subgraphs`: then it is kept whole, and what its bodies
// read from the enclosing scope must be available like its own inputs. The parent's metadata is
// not kept.
Expected<onnx::ModelProto> subgraph_model(const onnx::ModelProto& parent,
                                          const std::set<std::string>& produced,
                                          const std::vector<onnx::ValueInfoProto>& inputs,
                                          const std::vector<onnx::ValueInfoProto>& outputs,
                                          const std::string& graph_name,
                                          bool keep_subgraphs = false);

// A graph input or output of a tensor type with fixed dims.
onnx::ValueInfoProto tensor_value_info(const std::string& name, DType dtype, const Shape& shape);

}  // namespace ig

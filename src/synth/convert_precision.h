// A float model in float16 or bfloat16: float32 initializers, values and float-typed attributes
// (Constant, ConstantOfShape, Cast's `to`, `dtype`) converted. Nodes whose ONNX schema at the
// model's opset does not take the target type (Conv has no bfloat16 before opset 22), and nodes
// the user blocks, stay float32 behind Cast nodes. The result records its lineage (synth/mutate.h)
// as a `convert` mutation, so replay_lineage rebuilds it from its parent.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "tensor/tensor.h"

namespace ig {

struct ConvertOptions {
  DType to = DType::kFloat16;      // kFloat16 or kBFloat16
  bool keep_io = false;            // graph inputs and outputs stay float32 (Cast at the edges)
  std::vector<std::string> block;  // op types or node names left in float32
  std::string label = "model";     // the model's path, for messages
  std::string base_dir;            // resolves external data
};

struct ConvertResult {
  onnx::ModelProto model;
  std::vector<std::string> converted_nodes;  // computing in the target type
  std::map<std::string, std::string> kept;   // node -> why it stays float32
  int64_t initializers = 0;                  // converted
  int64_t casts = 0;                         // Cast nodes added
  bool opset_raised = false;                 // bfloat16 needs ai.onnx 13
};

// Errors: a target other than float16/bfloat16, a model with control flow (named node), a --block
// that names nothing, nothing float32 to convert.
Expected<ConvertResult> convert_precision(const onnx::ModelProto& parent,
                                          const ConvertOptions& options);

// "fp16" | "float16" -> kFloat16, "bf16" | "bfloat16" -> kBFloat16.
Expected<DType> parse_precision(const std::string& text);
std::map<std::string, std::string> convert_params(const ConvertOptions& options);
Expected<ConvertOptions> convert_options_from(const std::map<std::string, std::string>& params);

}  // namespace ig

// Inputs that travel with a variant: metadata_props key infergap.inputs holds a JSON object
// {input name: input spec} (the `run --input` syntax of synth/inputs.h). Extracted single-node
// variants name the captured tensors there (file:inputs/<hash>.pb, relative to the model's folder);
// the exceptional-value mutation adds inject=KIND@WHERE. `infergap campaign` feeds them.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "model/graph.h"

namespace ig {

inline constexpr const char* kInputsKey = "infergap.inputs";

std::map<std::string, std::string> variant_inputs(const onnx::ModelProto& model);
void set_variant_inputs(onnx::ModelProto& model, const std::map<std::string, std::string>& specs);

// NAME=SPEC strings for the model at `path`, with relative file paths made absolute; empty when
// the model carries no inputs.
Expected<std::vector<std::string>> variant_input_specs(const std::string& path, const Model& model);

}  // namespace ig

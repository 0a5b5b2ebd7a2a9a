// Single-node variants (Mind the Gap's operator extraction): each node of a parent model becomes a
// model of its own, fed the tensors that really reached it when the parent ran on the reference
// backend. The captured tensors are written as DIR/inputs/<tensor hash>.pb and named in the
// variant's infergap.inputs metadata (synth/variant_inputs.h), which `infergap campaign` feeds.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "inputs/inputs.h"

namespace ig {

struct ExtractResult {
  std::vector<onnx::ModelProto> variants;  // checker-valid, distinct content, in node order
  std::vector<std::string> hashes;
  std::map<std::string, int64_t> discarded;  // reason -> count
  std::vector<DefaultedDim> defaulted;       // the parent's open dims left at 1
};

// Runs `parent_path` on ref with `inputs` (--input NAME=SPEC, random for the rest from its seed;
// --shape / --dim), writes the captured inputs under out_dir/inputs and returns one variant per
// extractable node.
Expected<ExtractResult> extract_variants(const std::string& parent_path, const InputRequest& inputs,
                                         const std::string& out_dir);

}  // namespace ig

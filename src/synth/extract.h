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

namespace ig {

struct ExtractResult {
  std::vector<onnx::ModelProto> variants;  // checker-valid, distinct content, in node order
  std::vector<std::string> hashes;
  std::map<std::string, int64_t> discarded;  // reason -> count
};

// Runs `parent_path` on ref with `input_specs` (NAME=SPEC; random for the rest, from `seed`),
// writes the captured inputs under out_dir/inputs and returns one variant per extractable node.
Expected<ExtractResult> extract_variants(const std::string& parent_path,
                                         const std::vector<std::string>& input_specs, uint64_t seed,
                                         const std::string& out_dir);

}  // namespace ig

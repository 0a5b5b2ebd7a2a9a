// ONNX shape inference in a child process. libonnx's inference functions crash on some malformed
// models (SIGFPE dividing by a zero stride, SIGSEGV indexing the dims of a rank-0 Gemm input, both
// found by fuzz/); in a child, such a crash is an error naming the model, not the end of the
// coordinator, and a hang is cut off.
#pragma once

#include <string>

#include "core/status.h"

namespace onnx {
class ModelProto;
}

namespace ig {

// Adds inferred types and shapes to `proto` (value_info, outputs). An exception inside inference
// leaves `proto` unchanged and is not an error (inference is advisory); a crash or a run longer
// than `timeout_seconds` is.
Status infer_shapes_isolated(onnx::ModelProto& proto, const std::string& label,
                             double timeout_seconds);

}  // namespace ig

// ONNX's checker and shape inference on untrusted models: libonnx's (Debian's, linked here) for the
// models it knows, the onnx package's from the venv (onnx_checker.py) for newer IR versions and
// opsets, in a helper process (the onnx package's always, libonnx's where the caller must survive
// it). libonnx crashes on some malformed
// models (SIGFPE dividing by a zero stride, SIGSEGV indexing the dims of a rank-0 Gemm input, both
// found by fuzz/), so a process that must survive them (the coordinator, a test) runs them in one
// long-lived helper process, forked once and reused for every model: a crash there is an error
// naming the model, the helper is started again for the next one, and a hang is cut off. A fork
// per model cost two thirds of a campaign's time. A process that is itself the isolation (a
// platform worker, restarted on a crash) runs them in place.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace onnx {
class ModelProto;
}

namespace ig {

struct OnnxChecks {
  bool checker = true;       // onnx::checker::check_model
  bool infer_shapes = true;  // adds inferred types and shapes (value_info, outputs)
  // The checker's full check: strict shape inference with types checked, whose complaint is a
  // checker error (a mutator's variant must pass it).
  bool strict = false;
  bool in_this_process = false;
  double timeout_seconds = 60;
};

// Runs the checker, then shape inference, on `proto`. A checker complaint is an error; an
// exception inside inference leaves `proto` unchanged and is not (inference is advisory); a
// crash or a run longer than `timeout_seconds` is.
Status check_and_infer(onnx::ModelProto& proto, const std::string& label, const OnnxChecks& checks);

// The libonnx helper's process id, or -1 while none runs (tests).
int onnx_helper_pid();

// Whether the model has an IR version or an opset newer than the linked libonnx knows: then the
// onnx package's checker judges it.
bool newer_than_libonnx(const onnx::ModelProto& proto);

// What the linked libonnx knows: its IR version, and its newest opset of a domain (0: unknown).
int libonnx_ir_version();
int libonnx_opset(const std::string& domain);
// The interpreter ($INFERGAP_PYTHON, else .venv's) and onnx_checker.py.
std::vector<std::string> python_checker_command();

}  // namespace ig

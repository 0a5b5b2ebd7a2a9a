// The `torch` platform's knobs. Kept free of ATen headers: the binding (linked into the worker)
// reads them from the spec and hands them to the dlopen'ed module that links libtorch.
#pragma once

#include <string>

namespace ig {

class Backend;

struct TorchOptions {
  bool mkldnn = true;          // ATen's oneDNN-backed kernels (conv, linear) vs its native ones
  int threads = 1;             // at::set_num_threads (intra-op parallelism splits reductions)
  bool deterministic = false;  // at::globalContext().setDeterministicAlgorithms
  bool fallback_ref = false;   // nodes ATen is not mapped for run on the reference kernels
  // PyTorch's quantized engine for int8 QDQ groups (torch_int8.h): "qnnpack", "fbgemm",
  // "onednn"; empty: no quantized kernels, a QDQ model runs in fp32 on dequantized values.
  std::string qengine;
};

// The module's one entry point: a TorchBackend, or nullptr with `error` set.
extern "C" {
using MakeTorchBackendFn = Backend* (*)(const TorchOptions* options, std::string* error);
}
inline constexpr const char* kMakeTorchBackendSymbol = "infergap_make_torch_backend";

}  // namespace ig

// The cuda platforms `infergap platforms` lists on every machine: each fixed cuDNN forward
// algorithm (the paper's Fig 3), cuDNN's heuristic, autotuning (its Table SUP-2: timing makes the
// choice vary between runs), TF32 and deterministic mode. Where the worker was built without CUDA,
// the backend still exists so that each is listed as unavailable with the reason.
#include "platform/bindings/cuda_options.h"
#include "platform/catalog.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {
namespace {

const CandidateRegistrar kCudaCandidates("cuda", [] {
  std::vector<PlatformCandidate> out;
  for (size_t i = 0; i < cuda::kFixedAlgoCount; ++i) {
    out.push_back({std::string("cuda:algo=") + cuda::kAlgoNames[i],
                   {"gpu", "gpu-algos"},
                   "cuDNN fixed forward algorithm",
                   false});
  }
  out.push_back({"cuda", {"gpu"}, "cuDNN's heuristic choice (no timing)", false});
  out.push_back({"cuda:algo=autotune", {"gpu", "gpu-autotune"}, "timed once, fastest", false});
  out.push_back({"cuda:algo=autotune-median", {"gpu", "gpu-autotune"}, "median of timings", false});
  out.push_back({"cuda:algo=autotune,deterministic=on",
                 {"gpu", "gpu-autotune"},
                 "autotune among deterministic algorithms",
                 false});
  out.push_back({"cuda:tf32=on", {"gpu"}, "TF32 tensor cores allowed", false});
  return out;
});

#ifndef INFERGAP_CUDA_BACKEND
Expected<std::unique_ptr<Backend>> make_unbuilt(const PlatformSpec& spec) {
  IG_RETURN_IF_ERROR(cuda::parse_options(spec).status());
  return unsupported(
      "platform '{}': this infergap was built without the cuda backend (INFERGAP_CUDA=OFF: "
      "the CUDA toolkit or cuDNN was not found at configure time, or the option was turned off)",
      spec.to_string());
}

const BackendRegistrar kCudaRegistrar(BackendFactory{
    "cuda", "cuDNN + cuBLAS per ONNX node (not built here: INFERGAP_CUDA=OFF)", make_unbuilt,
    nullptr});
#endif

}  // namespace
}  // namespace ig

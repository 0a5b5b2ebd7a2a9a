// The `cuda` platform factory: `cuda:algo=winograd,tf32=off,deterministic=on,device=0`.
#include "backends/cuda/cuda_backend.h"
#include "platform/bindings/cuda_options.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {
namespace {

// tf32=off also sets NVIDIA_TF32_OVERRIDE=0, the driver-wide switch, so that no library call
// (including ones whose math mode we do not set) can use TF32.
Expected<std::map<std::string, std::string>> environment(const PlatformSpec& spec) {
  IG_ASSIGN_OR_RETURN(cuda::Options o, cuda::parse_options(spec));
  std::map<std::string, std::string> env;
  if (!o.tf32) env["NVIDIA_TF32_OVERRIDE"] = "0";
  return env;
}

Expected<std::unique_ptr<Backend>> make(const PlatformSpec& spec) {
  IG_ASSIGN_OR_RETURN(cuda::Options o, cuda::parse_options(spec));
  auto ctx = cuda::Context::create(o);
  if (!ctx.ok()) {
    return Status(ctx.status().code(),
                  "platform '" + spec.to_string() + "': " + ctx.status().message());
  }
  return std::unique_ptr<Backend>(std::make_unique<CudaBackend>(std::move(*ctx)));
}

const BackendRegistrar kCudaRegistrar(BackendFactory{
    "cuda",
    "cuDNN + cuBLAS per ONNX node on one GPU (knobs: algo, tf32, deterministic, device, "
    "tune-runs, fallback)",
    make, environment});

}  // namespace
}  // namespace ig

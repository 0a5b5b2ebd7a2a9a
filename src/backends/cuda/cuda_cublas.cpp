#include "backends/cuda/cuda_cublas.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace ig::cuda {

namespace {

#ifndef INFERGAP_CUDA_LIBDIR
#define INFERGAP_CUDA_LIBDIR "/usr/local/cuda/lib64"
#endif

// The soname of the cuBLAS we compiled against, then the toolkit directory CMake found.
void* open_library(std::string& tried) {
  const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  for (const std::string& name : {soname, std::string(INFERGAP_CUDA_LIBDIR) + "/" + soname}) {
    if (void* h = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    tried += (tried.empty() ? "" : "; ") + name + ": " + ::dlerror();
  }
  return nullptr;
}

template <typename F>
Status bind(void* lib, const char* symbol, F& fn) {
  fn = reinterpret_cast<F>(::dlsym(lib, symbol));
  if (!fn) return unsupported("cuBLAS has no symbol {} (is it older than CUDA 11?)", symbol);
  return Status::Ok();
}

Status load(Cublas& api) {
  std::string tried;
  void* lib = open_library(tried);
  if (!lib) return unsupported("cannot load cuBLAS ({})", tried);
  IG_RETURN_IF_ERROR(bind(lib, "cublasCreate_v2", api.create));
  IG_RETURN_IF_ERROR(bind(lib, "cublasDestroy_v2", api.destroy));
  IG_RETURN_IF_ERROR(bind(lib, "cublasSetStream_v2", api.set_stream));
  IG_RETURN_IF_ERROR(bind(lib, "cublasSetMathMode", api.set_math_mode));
  IG_RETURN_IF_ERROR(bind(lib, "cublasSetAtomicsMode", api.set_atomics_mode));
  IG_RETURN_IF_ERROR(bind(lib, "cublasSgemm_v2", api.sgemm));
  IG_RETURN_IF_ERROR(bind(lib, "cublasSgemmStridedBatched", api.sgemm_strided_batched));
  IG_RETURN_IF_ERROR(bind(lib, "cublasGetStatusName", api.status_name));
  IG_RETURN_IF_ERROR(bind(lib, "cublasGetStatusString", api.status_string));
  return Status::Ok();  // the library stays loaded for the life of the process
}

}  // namespace

Expected<const Cublas*> cublas() {
  static Cublas api;
  static Status status = load(api);
  if (!status.ok()) return status;
  return &api;
}

}  // namespace ig::cuda

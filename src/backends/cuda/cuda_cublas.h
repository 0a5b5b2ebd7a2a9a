// cuBLAS, opened with dlopen when a cuda platform first needs it. Linking it would load cuBLASLt
// (540 MB, 0.2 s of relocation and 200 MB of memory) into every worker process, whatever its
// platform; the few entry points the backend calls are looked up here instead.
#pragma once

#include <cublas_v2.h>

#include "core/status.h"

namespace ig::cuda {

struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSetAtomicsMode) set_atomics_mode = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasSgemmStridedBatched) sgemm_strided_batched = nullptr;
  decltype(&cublasGetStatusName) status_name = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

// Loaded once per process; an error names the library and the missing symbol.
Expected<const Cublas*> cublas();

}  // namespace ig::cuda

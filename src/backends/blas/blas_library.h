// fp32 and fp64 GEMM from a real BLAS. OpenBLAS and BLIS both export cblas_sgemm and cblas_dgemm,
// so the chosen library is loaded with dlopen (RTLD_LOCAL) instead of being linked: one worker
// process holds exactly one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

struct BlasChoice {
  std::string lib;   // "openblas" or "blis"
  std::string core;  // OpenBLAS core type (OPENBLAS_CORETYPE), "" = the library's own choice
  std::string arch;  // BLIS architecture (BLIS_ARCH_TYPE), "" = the library's own choice
  int threads = 1;
  // The precision the model runs in: fp64 converts it (as ref's dtype=fp64) so every GEMM is a
  // dgemm; fp32 runs it as written (sgemm, and dgemm for a model that is fp64 itself).
  bool fp64 = false;
};

// OpenBLAS core names that OPENBLAS_CORETYPE forces (0.3.21 DYNAMIC_ARCH, x86-64).
const std::vector<std::string>& openblas_core_names();
// BLIS 0.9 architecture names in arch_t order: BLIS_ARCH_TYPE takes the index.
const std::vector<std::string>& blis_arch_names();

// C[MxN] = A[MxK] * B[KxN], row-major with leading dimensions (alpha 1, beta 0).
using SgemmFn = void (*)(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                         const float* B, int64_t ldb, float* C, int64_t ldc);
using DgemmFn = void (*)(int64_t M, int64_t N, int64_t K, const double* A, int64_t lda,
                         const double* B, int64_t ldb, double* C, int64_t ldc);

struct BlasLibrary {
  std::string path;
  std::string active;   // the core type / architecture the library runs with, as it reports it
  std::string name;     // "OpenBLAS" or "BLIS"
  std::string version;  // as the library reports it (openblas_get_config, bli_info_get_version_str)
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
};

// Loads the library once per process and checks that it runs the requested core type or
// architecture (OpenBLAS silently substitutes names it does not know or cannot run).
Expected<const BlasLibrary*> open_blas(const BlasChoice& choice);

}  // namespace ig

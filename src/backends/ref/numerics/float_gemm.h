// The one floating GEMM of the reference backend (MatMul, Gemm and Conv go through it), honouring
// the platform's numerics: a real BLAS (fp32 or fp64) where the `blas` platform plugs one in,
// compensated exact dot products for acc=exact, otherwise the stated accumulation order
// (ordered_gemm).
#pragma once

#include <cmath>
#include <type_traits>
#include <vector>

#include "backends/ref/numerics.h"

namespace ig {

// Dot2 (Ogita, Rump, Oishi 2005): products split exactly with FMA, sums with TwoSum, so the result
// is as accurate as if computed in twice the working precision of double, then rounded once.
template <typename Acc>
void exact_gemm(int64_t M, int64_t N, int64_t K, const Acc* A, int64_t lda, int64_t a_col_stride,
                const Acc* B, int64_t ldb, Acc* C, int64_t ldc) {
  std::vector<double> hi(static_cast<size_t>(N)), lo(static_cast<size_t>(N));
  for (int64_t m = 0; m < M; ++m) {
    std::fill(hi.begin(), hi.end(), 0.0);
    std::fill(lo.begin(), lo.end(), 0.0);
    const Acc* a = A + m * lda;
    for (int64_t k = 0; k < K; ++k) {
      const double ak = static_cast<double>(a[k * a_col_stride]);
      const Acc* bk = B + k * ldb;
      for (int64_t j = 0; j < N; ++j) {
        const double bj = static_cast<double>(bk[j]);
        const double p = ak * bj;
        const double e = std::fma(ak, bj, -p);
        const double s = hi[j] + p;
        const double z = s - hi[j];
        const double q = (hi[j] - (s - z)) + (p - z);
        hi[j] = s;
        lo[j] += q + e;
      }
    }
    for (int64_t j = 0; j < N; ++j) C[m * ldc + j] = static_cast<Acc>(hi[j] + lo[j]);
  }
}

// C[m * ldc + j] = sum_k A[m * lda + k * a_col_stride] * B[k * ldb + j].
template <typename Acc>
void float_gemm(const Numerics& num, int64_t M, int64_t N, int64_t K, const Acc* A, int64_t lda,
                int64_t a_col_stride, const Acc* B, int64_t ldb, Acc* C, int64_t ldc) {
  if constexpr (std::is_same_v<Acc, float>) {
    if (num.mma) {
      mma_gemm(*num.mma, M, N, K, A, lda, a_col_stride, B, ldb, C, ldc);
      return;
    }
  }
  if (num.exact) {
    exact_gemm(M, N, K, A, lda, a_col_stride, B, ldb, C, ldc);
    return;
  }
  const Numerics::GemmFn<Acc>* blas = nullptr;
  if constexpr (std::is_same_v<Acc, float>) blas = &num.sgemm;
  if constexpr (std::is_same_v<Acc, double>) blas = &num.dgemm;
  if (blas && *blas && M > 0 && N > 0) {
    if (a_col_stride == 1) {
      (*blas)(M, N, K, A, lda, B, ldb, C, ldc);
    } else {  // BLAS wants rows of A contiguous
      std::vector<Acc> a(static_cast<size_t>(M * K));
      for (int64_t m = 0; m < M; ++m) {
        for (int64_t k = 0; k < K; ++k)
          a[static_cast<size_t>(m * K + k)] = A[m * lda + k * a_col_stride];
      }
      (*blas)(M, N, K, a.data(), K, B, ldb, C, ldc);
    }
    return;
  }
  ordered_gemm<Acc>(num.acc, M, N, K, A, lda, a_col_stride, B, ldb, C, ldc);
}

// A tensor's elements in compute precision: no copy when T already is the compute type.
template <typename T>
class ComputeView {
 public:
  ComputeView(const T* data, int64_t n) {
    if constexpr (std::is_same_v<T, compute_t<T>>) {
      ptr_ = data;
    } else {
      copy_.resize(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) copy_[static_cast<size_t>(i)] = to_compute(data[i]);
      ptr_ = copy_.data();
    }
  }
  const compute_t<T>* data() const { return ptr_; }

 private:
  const compute_t<T>* ptr_ = nullptr;
  std::vector<compute_t<T>> copy_;
};

}  // namespace ig

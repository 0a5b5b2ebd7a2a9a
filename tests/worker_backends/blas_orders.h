// Scalar transcriptions of the order in which OpenBLAS 0.3.21 and BLIS 0.9 sum one dgemm element,
// read from their drivers and kernels and confirmed bit for bit by blas_test.cpp: K is cut into
// panels, each panel summed from zero in one chain (fused multiply-adds where the kernel uses FMA),
// and the panel sums added to the element in order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace ig::testing {

struct PanelOrder {
  std::vector<int64_t> panels;  // lengths, summing to K
  bool fma = false;
};

// OpenBLAS's level-3 driver (driver/level3/level3.c) takes GEMM_Q terms while at least 2 * GEMM_Q
// remain; a rest between GEMM_Q and 2 * GEMM_Q is halved, rounded up to a multiple of
// GEMM_UNROLL_M; a shorter rest is one panel.
inline std::vector<int64_t> openblas_panels(int64_t K, int64_t q, int64_t unroll) {
  std::vector<int64_t> out;
  for (int64_t done = 0; done < K;) {
    int64_t len = K - done;
    if (len >= 2 * q) {
      len = q;
    } else if (len > q) {
      len = (len / 2 + unroll - 1) / unroll * unroll;
    }
    out.push_back(len);
    done += len;
  }
  return out;
}

// BLIS's blocked variant takes KC terms at a time; the last panel is the rest.
inline std::vector<int64_t> blis_panels(int64_t K, int64_t kc) {
  std::vector<int64_t> out;
  for (int64_t done = 0; done < K; done += kc) out.push_back(std::min(kc, K - done));
  return out;
}

// "openblas:Q:UNROLL:FMA" or "blis:KC:FMA" (FMA 0 or 1) for a reduction of K terms; nullopt for
// anything else.
inline std::optional<PanelOrder> panel_order(const std::string& text, int64_t K) {
  std::vector<int64_t> f;
  std::string kind;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t colon = std::min(text.find(':', at), text.size());
    const std::string part = text.substr(at, colon - at);
    if (kind.empty()) {
      kind = part;
    } else {
      f.push_back(std::atoll(part.c_str()));
    }
    at = colon + 1;
  }
  if (kind == "openblas" && f.size() == 3)
    return PanelOrder{openblas_panels(K, f[0], f[1]), f[2] != 0};
  if (kind == "blis" && f.size() == 2) return PanelOrder{blis_panels(K, f[0]), f[1] != 0};
  return std::nullopt;
}

// sum_k a[k] * b[k * b_stride] in the panel order.
inline double panel_dot(const PanelOrder& order, const double* a, const double* b,
                        int64_t b_stride) {
  double total = 0;
  int64_t k = 0;
  for (size_t p = 0; p < order.panels.size(); ++p) {
    double acc = 0;
    for (const int64_t end = k + order.panels[p]; k < end; ++k)
      acc = order.fma ? std::fma(a[k], b[k * b_stride], acc) : acc + a[k] * b[k * b_stride];
    total = p == 0 ? acc : total + acc;
  }
  return total;
}

}  // namespace ig::testing

// Shared by DFT and STFT: a direct (O(n^2)) discrete Fourier transform whose sums accumulate in
// index order in the compute type; twiddle factors are computed in double from (k*m mod n) and
// rounded once, so their error does not grow with k*m.
#pragma once

#include <cmath>
#include <numbers>
#include <vector>

#include "backends/ref/kernel_util.h"

namespace ig::signal {

// Transforms n_in complex samples (re[m*stride], im[m*stride]; im may be null for real input),
// zero-padded or truncated to length n, and writes bins [0, bins) to out[2*k], out[2*k+1].
// inverse uses e^{+2 pi i k m / n} and scales by 1/n.
template <typename C>
void dft(const C* re, const C* im, int64_t stride, int64_t n_in, int64_t n, bool inverse,
         int64_t bins, C* out) {
  const int64_t m_end = std::min(n_in, n);
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < bins; ++k) {
    C acc_re = 0, acc_im = 0;
    for (int64_t m = 0; m < m_end; ++m) {
      const double angle =
          sign * 2.0 * std::numbers::pi * static_cast<double>((k * m) % n) / static_cast<double>(n);
      const C c = static_cast<C>(std::cos(angle)), s = static_cast<C>(std::sin(angle));
      const C xr = re[m * stride], xi = im ? im[m * stride] : C(0);
      acc_re += xr * c - xi * s;
      acc_im += xr * s + xi * c;
    }
    if (inverse) {
      acc_re /= static_cast<C>(n);
      acc_im /= static_cast<C>(n);
    }
    out[2 * k] = acc_re;
    out[2 * k + 1] = acc_im;
  }
}

// The full spectrum of length n whose first n/2 + 1 values are the n_in given ones (zero-padded
// or truncated) and whose others mirror them conjugated, as a real signal's spectrum does; the
// imaginary parts of the DC and (n even) Nyquist values are dropped, as numpy's irfft does.
template <typename C>
void hermitian_spectrum(const C* re, const C* im, int64_t stride, int64_t n_in, int64_t n,
                        std::vector<C>& full_re, std::vector<C>& full_im) {
  full_re.assign(static_cast<size_t>(n), C(0));
  full_im.assign(static_cast<size_t>(n), C(0));
  const int64_t half = n / 2 + 1;
  for (int64_t k = 0; k < std::min(half, n_in); ++k) {
    full_re[static_cast<size_t>(k)] = re[k * stride];
    full_im[static_cast<size_t>(k)] = im[k * stride];
  }
  full_im[0] = C(0);
  if (n % 2 == 0) full_im[static_cast<size_t>(n / 2)] = C(0);
  for (int64_t k = half; k < n; ++k) {
    full_re[static_cast<size_t>(k)] = full_re[static_cast<size_t>(n - k)];
    full_im[static_cast<size_t>(k)] = -full_im[static_cast<size_t>(n - k)];
  }
}

// Reads a float tensor into compute precision.
template <typename T>
std::vector<compute_t<T>> to_compute_vector(const Tensor& t) {
  std::vector<compute_t<T>> v(static_cast<size_t>(t.numel()));
  const T* p = t.data<T>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = to_compute(p[i]);
  return v;
}

}  // namespace ig::signal

// Winograd and FFT convolution against a plain direct convolution in long double, within error
// bounds taken from the literature (see winograd_bound and fft_bound), never tuned to the data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include "backends/ref/numerics/conv_algorithms.h"
#include "backends/ref/numerics/winograd_transforms.h"

namespace ig {
namespace {

struct ConvShape {
  int64_t c, h, w, m, kh, kw, pad_top, pad_left, pad_bottom, pad_right;
  Conv2dProblem problem() const {
    return {c,
            h,
            w,
            m,
            kh,
            kw,
            pad_top,
            pad_left,
            h + pad_top + pad_bottom - kh + 1,
            w + pad_left + pad_right - kw + 1};
  }
};

// Odd sizes, asymmetric padding, output sizes that tiles of 2 and 4 do not divide, C = 1 and C > 1.
const ConvShape k3x3Shapes[] = {
    {1, 8, 8, 1, 3, 3, 0, 0, 0, 0},     // 6x6: F(4) crops its last tiles
    {3, 11, 7, 4, 3, 3, 1, 1, 1, 1},    // 11x7: both tiles crop
    {8, 5, 9, 2, 3, 3, 2, 0, 0, 0},     // padding on top only
    {16, 14, 14, 3, 3, 3, 1, 1, 1, 1},  // 14x14
    {1, 1, 1, 2, 3, 3, 1, 1, 1, 1},     // one output, from padding almost only
    {5, 10, 10, 2, 3, 3, 0, 2, 2, 0},   // padding at the bottom and left
};
const ConvShape kOtherShapes[] = {
    {3, 12, 9, 2, 5, 5, 2, 2, 2, 2},
    {4, 6, 13, 3, 1, 7, 0, 3, 0, 3},
    {2, 7, 7, 2, 1, 1, 0, 0, 0, 0},
};

template <typename T>
std::vector<T> uniform01(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(static_cast<float>(rng() >> 8) * 0x1.0p-24f);
  return v;
}

struct Data {
  Conv2dProblem p;
  std::vector<float> x, w;
  size_t y_size() const { return static_cast<size_t>(p.out_channels * p.out_h * p.out_w); }
};

Data make_data(const ConvShape& s, uint32_t seed) {
  Data d{s.problem(), {}, {}};
  d.x = uniform01<float>(static_cast<size_t>(s.c * s.h * s.w), seed);
  d.w = uniform01<float>(static_cast<size_t>(s.m * s.c * s.kh * s.kw), seed + 1);
  return d;
}

// Direct convolution, summed over (c, a, b) in that order in Acc; with Acc = long double (64-bit
// mantissa) it is the reference, with Acc = float it is what a direct fp32 kernel returns.
template <typename Acc, typename T>
std::vector<Acc> direct(const Conv2dProblem& p, const T* x, const T* w, bool absolute = false) {
  std::vector<Acc> y(static_cast<size_t>(p.out_channels * p.out_h * p.out_w));
  for (int64_t m = 0; m < p.out_channels; ++m)
    for (int64_t i = 0; i < p.out_h; ++i)
      for (int64_t j = 0; j < p.out_w; ++j) {
        Acc s = 0;
        for (int64_t c = 0; c < p.channels; ++c)
          for (int64_t a = 0; a < p.kernel_h; ++a)
            for (int64_t b = 0; b < p.kernel_w; ++b) {
              const int64_t r = i + a - p.pad_top, q = j + b - p.pad_left;
              if (r < 0 || r >= p.height || q < 0 || q >= p.width) continue;
              Acc xv = static_cast<Acc>(x[(c * p.height + r) * p.width + q]);
              Acc wv =
                  static_cast<Acc>(w[((m * p.channels + c) * p.kernel_h + a) * p.kernel_w + b]);
              s += absolute ? std::fabs(xv) * std::fabs(wv) : xv * wv;
            }
        y[static_cast<size_t>((m * p.out_h + i) * p.out_w + j)] = s;
      }
  return y;
}

double gamma(double k, double u) { return k * u / (1 - k * u); }

int max_nonzeros_per_row(const double* mat, int rows, int cols) {
  int best = 0;
  for (int i = 0; i < rows; ++i)
    best = std::max<int>(best, static_cast<int>(std::count_if(mat + i * cols, mat + (i + 1) * cols,
                                                              [](double v) { return v != 0; })));
  return best;
}

// |L| X |L|^T for L: p x q, X: q x q (X already non-negative).
std::vector<double> abs_sandwich(const double* l, int p, int q, const std::vector<double>& x) {
  std::vector<double> t(static_cast<size_t>(p * q), 0.0), out(static_cast<size_t>(p * p), 0.0);
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < q; ++j)
      for (int k = 0; k < q; ++k) t[i * q + j] += std::fabs(l[i * q + k]) * x[k * q + j];
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j)
      for (int k = 0; k < q; ++k) out[i * p + j] += t[i * q + k] * std::fabs(l[j * q + k]);
  return out;
}

// Componentwise bound (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Lemma 3.5
// and section 3.5: |fl(AB) - AB| <= gamma_n |A||B|, composed through the stages):
//   |y_hat - y| <= gamma_k * S,  S = sum_c |A^T| [(|G||g_c||G^T|) (.) (|B^T||d_c||B|)] |A|,
// with k = 2 (nnz(G) + 1) [filter transform; +1: G rounded to T] + 2 nnz(B^T) [input transform]
//        + 1 [product] + (C - 1) [channel sum, any order] + 2 nnz(A^T) [output transform],
// nnz = most nonzeros in a row. S / sum|x||w| is Winograd's error amplification (Barabasz et al.,
// "Error analysis and improving the accuracy of Winograd convolution for DNNs", TOMS 2020).
std::vector<double> winograd_bound(int tile, const Conv2dProblem& p, const float* x, const float* w,
                                   double u) {
  const WinogradTransform& t = *winograd_transform(tile);
  const int m = t.m, a = t.a;
  const double k = 2 * (max_nonzeros_per_row(t.g, a, 3) + 1) +
                   2 * max_nonzeros_per_row(t.bt, a, a) + 1 + (p.channels - 1) +
                   2 * max_nonzeros_per_row(t.at, m, a);
  std::vector<double> bound(static_cast<size_t>(p.out_channels * p.out_h * p.out_w), 0.0);
  std::vector<double> d(static_cast<size_t>(a * a)), g(9), prod(d.size());
  for (int64_t ti = 0; ti * m < p.out_h; ++ti)
    for (int64_t tj = 0; tj * m < p.out_w; ++tj)
      for (int64_t mo = 0; mo < p.out_channels; ++mo) {
        std::vector<double> s(static_cast<size_t>(m * m), 0.0);
        for (int64_t c = 0; c < p.channels; ++c) {
          for (int i = 0; i < a; ++i)
            for (int j = 0; j < a; ++j) {
              const int64_t r = ti * m + i - p.pad_top, q = tj * m + j - p.pad_left;
              const bool in = r >= 0 && r < p.height && q >= 0 && q < p.width;
              d[i * a + j] = in ? std::fabs(x[(c * p.height + r) * p.width + q]) : 0.0;
            }
          for (int i = 0; i < 9; ++i) g[i] = std::fabs(w[(mo * p.channels + c) * 9 + i]);
          const auto v = abs_sandwich(t.bt, a, a, d), uu = abs_sandwich(t.g, a, 3, g);
          for (size_t i = 0; i < prod.size(); ++i) prod[i] = v[i] * uu[i];
          const auto y = abs_sandwich(t.at, m, a, prod);
          for (size_t i = 0; i < s.size(); ++i) s[i] += y[i];
        }
        for (int i = 0; i < m && ti * m + i < p.out_h; ++i)
          for (int j = 0; j < m && tj * m + j < p.out_w; ++j)
            bound[static_cast<size_t>((mo * p.out_h + ti * m + i) * p.out_w + tj * m + j)] =
                gamma(k, u) * s[i * m + j];
      }
  return bound;
}

// Percival, "Rapid multiplication modulo the sum and difference of highly composite numbers"
// (Math. Comp. 72, 2003), Theorem 5.1 (also Brent & Zimmermann, Modern Computer Arithmetic,
// Theorem 3.3.2): a cyclic convolution of length N = 2^n through FFTs has
//   max|z_hat - z| <= ||x||_2 ||w||_2 [(1+u)^{3n} (1+u sqrt5)^{3n+1} (1+beta)^{3n} - 1],
// beta = error of the twiddles (FFTW's are correctly rounded from higher precision: beta = u).
// The 2-D plane of Nh x Nw is a transform of n = log2(Nh Nw) levels. Summing C products in the
// frequency domain adds at most sqrt2 gamma_C sum_c ||X_c|| ||W_c|| / N = sqrt2 gamma_C
// sum_c ||x_c|| ||w_c|| (Parseval, Cauchy-Schwarz). FFTW's codelets are not radix-2, so this is the
// literature's bound for FFT convolution, not a proof about FFTW.
double fft_bound(const Conv2dProblem& p, const float* x, const float* w, double u) {
  auto log2_pow2 = [](int64_t v) {
    int n = 0;
    while ((int64_t{1} << n) < v) ++n;
    return n;
  };
  const double n = log2_pow2(p.out_h + p.kernel_h - 1) + log2_pow2(p.out_w + p.kernel_w - 1);
  const double factor = std::pow(1 + u, 3 * n) * std::pow(1 + u * std::sqrt(5.0), 3 * n + 1) *
                            std::pow(1 + u, 3 * n) -
                        1 + std::sqrt(2.0) * gamma(static_cast<double>(p.channels), u);
  const int64_t xs = p.height * p.width, ws = p.kernel_h * p.kernel_w;
  double worst = 0;  // the bound of the output channel with the largest norms
  for (int64_t m = 0; m < p.out_channels; ++m) {
    double sum = 0;
    for (int64_t c = 0; c < p.channels; ++c) {
      double nx = 0, nw = 0;
      for (int64_t i = 0; i < xs; ++i) nx += double{x[c * xs + i]} * x[c * xs + i];
      for (int64_t i = 0; i < ws; ++i)
        nw += double{w[(m * p.channels + c) * ws + i]} * w[(m * p.channels + c) * ws + i];
      sum += std::sqrt(nx) * std::sqrt(nw);
    }
    worst = std::max(worst, factor * sum);
  }
  return worst;
}

AccumulationPolicy policy(const char* order = "seq", bool fma = false) {
  AccumulationPolicy pol;
  pol.order = *parse_reduction_order(order);
  pol.fma = fma;
  return pol;
}

// Runs algo into a fresh output and checks: same bits twice, within bound of the reference,
// and (with enough outputs) bits different from a direct fp32 sum.
template <typename T, typename Algo>
void check(const Data& d, Algo algo, std::vector<double> bound, const char* what) {
  // The long double reference errs by at most gamma_{C KH KW} sum|x||w| in its own unit roundoff.
  const auto absum = direct<double>(d.p, d.x.data(), d.w.data(), true);
  const double u_ref = std::numeric_limits<long double>::epsilon() / 2;
  const double terms = static_cast<double>(d.p.channels * d.p.kernel_h * d.p.kernel_w);
  for (size_t i = 0; i < bound.size(); ++i) bound[i] += gamma(terms, u_ref) * absum[i];
  std::vector<T> xt(d.x.begin(), d.x.end()), wt(d.w.begin(), d.w.end());
  std::vector<T> y1(d.y_size()), y2(d.y_size());
  EXPECT_TRUE(algo(xt.data(), wt.data(), y1.data())) << what;
  EXPECT_TRUE(algo(xt.data(), wt.data(), y2.data())) << what;
  EXPECT_EQ(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(T)), 0)
      << what << ": not deterministic";
  const auto ref = direct<long double>(d.p, d.x.data(), d.w.data());
  double max_err = 0, max_ratio = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double err = static_cast<double>(std::fabs(static_cast<long double>(y1[i]) - ref[i]));
    max_err = std::max(max_err, err);
    max_ratio = std::max(max_ratio, err / bound[i]);
    EXPECT_LE(err, bound[i]) << what << " output " << i;
  }
  std::printf("%s: max err %.3g, max err/bound %.3g", what, max_err, max_ratio);
  if constexpr (std::is_same_v<T, float>) {
    const auto fp32 = direct<float>(d.p, d.x.data(), d.w.data());
    size_t differ = 0;
    for (size_t i = 0; i < fp32.size(); ++i) differ += y1[i] != fp32[i];
    if (y1.size() >= 16) {
      EXPECT_GT(differ, 0u) << what << ": same bits as direct fp32";
    }
    std::printf(", %zu/%zu outputs differ from direct fp32", differ, y1.size());
  }
  std::printf("\n");
}

template <typename T>
void check_winograd(int tile, const Data& d, const AccumulationPolicy& pol, const char* what) {
  const double u = std::numeric_limits<T>::epsilon() / 2;
  check<T>(
      d, [&](const T* x, const T* w, T* y) { return conv2d_winograd<T>(tile, d.p, x, w, y, pol); },
      winograd_bound(tile, d.p, d.x.data(), d.w.data(), u), what);
}

template <typename T>
void check_fft(const Data& d, const AccumulationPolicy& pol, const char* what) {
  const double u = std::numeric_limits<T>::epsilon() / 2;
  const std::vector<double> bound(d.y_size(), fft_bound(d.p, d.x.data(), d.w.data(), u));
  check<T>(
      d, [&](const T* x, const T* w, T* y) { return conv2d_fft<T>(d.p, x, w, y, pol); }, bound,
      what);
}

TEST(ConvAlgorithms, WinogradWithinBoundDeterministicAndNotDirect) {
  uint32_t seed = 1;
  for (const ConvShape& s : k3x3Shapes) {
    const Data d = make_data(s, seed += 2);
    ASSERT_TRUE(winograd_applicable(d.p));
    check_winograd<float>(2, d, policy(), "F(2x2,3x3) fp32");
    check_winograd<float>(4, d, policy(), "F(4x4,3x3) fp32");
    check_winograd<double>(2, d, policy(), "F(2x2,3x3) fp64");
    check_winograd<double>(4, d, policy(), "F(4x4,3x3) fp64");
  }
}

TEST(ConvAlgorithms, FftWithinBoundDeterministicAndNotDirect) {
  uint32_t seed = 100;
  std::vector<ConvShape> shapes(std::begin(k3x3Shapes), std::end(k3x3Shapes));
  shapes.insert(shapes.end(), std::begin(kOtherShapes), std::end(kOtherShapes));
  for (const ConvShape& s : shapes) {
    const Data d = make_data(s, seed += 2);
    ASSERT_TRUE(fft_applicable(d.p));
    check_fft<float>(d, policy(), "FFT fp32");
    check_fft<double>(d, policy(), "FFT fp64");
  }
}

// The channel sum in the transformed domain follows the policy: order and fma change the bits,
// each result staying within the bound.
TEST(ConvAlgorithms, PolicyReachesTheChannelSum) {
  const Data d = make_data({32, 9, 9, 2, 3, 3, 1, 1, 1, 1}, 7);
  for (int tile : {2, 4}) {
    check_winograd<float>(tile, d, policy("lanes8"), "winograd lanes8");
    check_winograd<float>(tile, d, policy("seq", true), "winograd fma");
  }
  std::vector<float> seq(d.y_size()), lanes(d.y_size()), fma(d.y_size());
  auto differs = [](const std::vector<float>& a, const std::vector<float>& b) {
    return std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) != 0;
  };
  for (int tile : {2, 4}) {
    ASSERT_TRUE(conv2d_winograd<float>(tile, d.p, d.x.data(), d.w.data(), seq.data(), policy()));
    ASSERT_TRUE(
        conv2d_winograd<float>(tile, d.p, d.x.data(), d.w.data(), lanes.data(), policy("lanes8")));
    ASSERT_TRUE(
        conv2d_winograd<float>(tile, d.p, d.x.data(), d.w.data(), fma.data(), policy("seq", true)));
    EXPECT_TRUE(differs(seq, lanes)) << tile;
    EXPECT_TRUE(differs(seq, fma)) << tile;
  }
  check_fft<float>(d, policy("pairwise"), "FFT pairwise");
  check_fft<float>(d, policy("seq", true), "FFT fma");
  ASSERT_TRUE(conv2d_fft<float>(d.p, d.x.data(), d.w.data(), seq.data(), policy()));
  ASSERT_TRUE(conv2d_fft<float>(d.p, d.x.data(), d.w.data(), lanes.data(), policy("lanes8")));
  ASSERT_TRUE(conv2d_fft<float>(d.p, d.x.data(), d.w.data(), fma.data(), policy("seq", true)));
  EXPECT_TRUE(differs(seq, lanes));
  EXPECT_TRUE(differs(seq, fma));
}

// FFTW plans are made under a mutex: concurrent calls (as the executor's worker threads make)
// neither crash nor change the bits.
TEST(ConvAlgorithms, FftConcurrentCallsGiveTheSameBits) {
  const Data d = make_data({4, 9, 11, 3, 3, 3, 1, 1, 1, 1}, 17);
  std::vector<float> alone(d.y_size());
  ASSERT_TRUE(conv2d_fft<float>(d.p, d.x.data(), d.w.data(), alone.data(), policy()));
  std::vector<std::vector<float>> results(4, std::vector<float>(d.y_size()));
  std::vector<std::thread> threads;
  for (auto& r : results)
    threads.emplace_back([&d, &r] {
      for (int i = 0; i < 20; ++i)
        conv2d_fft<float>(d.p, d.x.data(), d.w.data(), r.data(), policy());
    });
  for (auto& t : threads) t.join();
  for (const auto& r : results)
    EXPECT_EQ(std::memcmp(r.data(), alone.data(), alone.size() * sizeof(float)), 0);
}

TEST(ConvAlgorithms, NotApplicableReturnsFalseAndWritesNothing) {
  const Data d3 = make_data({2, 6, 6, 2, 3, 3, 1, 1, 1, 1}, 11);
  std::vector<float> y(d3.y_size(), -7.0f);
  EXPECT_FALSE(conv2d_winograd<float>(3, d3.p, d3.x.data(), d3.w.data(), y.data(), policy()));
  EXPECT_FALSE(conv2d_winograd<float>(6, d3.p, d3.x.data(), d3.w.data(), y.data(), policy()));
  for (const ConvShape& s : kOtherShapes) {
    const Data d = make_data(s, 13);
    EXPECT_FALSE(winograd_applicable(d.p));
    std::vector<float> yo(d.y_size(), -7.0f);
    EXPECT_FALSE(conv2d_winograd<float>(2, d.p, d.x.data(), d.w.data(), yo.data(), policy()));
    EXPECT_TRUE(std::all_of(yo.begin(), yo.end(), [](float v) { return v == -7.0f; }));
  }
  Conv2dProblem empty = d3.p;
  empty.channels = 0;
  EXPECT_FALSE(winograd_applicable(empty));
  EXPECT_FALSE(fft_applicable(empty));
  Conv2dProblem no_output = d3.p;
  no_output.out_w = 0;
  EXPECT_FALSE(winograd_applicable(no_output));
  EXPECT_FALSE(fft_applicable(no_output));
  Conv2dProblem huge = d3.p;  // an FFT plane beyond 8192 per side
  huge.width = huge.out_w = 9000;
  EXPECT_FALSE(fft_applicable(huge));
  EXPECT_FALSE(conv2d_fft<float>(huge, d3.x.data(), d3.w.data(), y.data(), policy()));
  EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](float v) { return v == -7.0f; }));
}

}  // namespace
}  // namespace ig

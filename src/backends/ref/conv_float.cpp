#include "backends/ref/conv_float.h"

#include "backends/ref/numerics/conv_algorithms.h"
#include "backends/ref/numerics/float_gemm.h"

namespace ig {

namespace {

Conv2dProblem problem_of(const ConvShape& s) {
  Conv2dProblem p;
  p.channels = s.c / s.group;
  p.height = s.g.in[0];
  p.width = s.g.in[1];
  p.out_channels = s.m / s.group;
  p.kernel_h = s.g.kernel[0];
  p.kernel_w = s.g.kernel[1];
  p.pad_top = s.g.pad_begin[0];
  p.pad_left = s.g.pad_begin[1];
  p.out_h = s.g.out[0];
  p.out_w = s.g.out[1];
  return p;
}

// Why a transformed-domain algorithm cannot run this convolution ("" when it can).
std::string transform_blocker(const ConvShape& s, ConvAlgorithm algo) {
  if (s.g.in.size() != 2) return "needs a 2-D convolution";
  for (size_t i = 0; i < 2; ++i) {
    if (s.g.strides[i] != 1) return "needs stride 1";
    if (s.g.dilations[i] != 1) return "needs dilation 1";
  }
  const Conv2dProblem p = problem_of(s);
  if (algo == ConvAlgorithm::kFft) return fft_applicable(p) ? "" : "does not apply to this shape";
  if (p.kernel_h != 3 || p.kernel_w != 3) return "needs a 3x3 kernel";
  return winograd_applicable(p) ? "" : "does not apply to this shape";
}

// Where term (channel c, kernel position k) sits along K, and K, for each term order.
class TermOrder {
 public:
  TermOrder(ConvAlgorithm algo, const Numerics& num, const WindowGeometry& g, int64_t channels)
      : algo_(algo), channels_(channels), ksize_(g.kernel_size()) {
    // A matrix unit with a pair layout sees each tap's channels padded with zeros (direct order).
    const int64_t pad = algo == ConvAlgorithm::kDirect && num.mma ? num.mma->pad_channels : 1;
    padded_ = (channels + pad - 1) / pad * pad;
    if (algo == ConvAlgorithm::kReducedLowering) reversed_ = reversed_positions(g.kernel);
  }
  int64_t k_total() const { return padded_ * ksize_; }
  int64_t row(int64_t c, int64_t k) const {
    switch (algo_) {
      case ConvAlgorithm::kIm2col:
        return c * ksize_ + k;
      case ConvAlgorithm::kReducedLowering:
        return reversed_[static_cast<size_t>(k)] * channels_ + c;
      default:
        return k * padded_ + c;
    }
  }

 private:
  // For each row-major kernel position, its index when the last spatial axis varies slowest.
  static std::vector<int64_t> reversed_positions(const std::vector<int64_t>& kernel) {
    const size_t nd = kernel.size();
    const int64_t n = shape_numel(kernel);
    std::vector<int64_t> out(static_cast<size_t>(n));
    std::vector<int64_t> pos(nd, 0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t r = 0;
      for (size_t d = nd; d-- > 0;) r = r * kernel[d] + pos[d];
      out[static_cast<size_t>(k)] = r;
      for (size_t d = nd; d-- > 0;) {
        if (++pos[d] < kernel[d]) break;
        pos[d] = 0;
      }
    }
    return out;
  }
  ConvAlgorithm algo_;
  int64_t channels_, ksize_, padded_ = 0;
  std::vector<int64_t> reversed_;
};

// One image, one group, as a GEMM: W' [mg x K] times the gathered input [K x out] with rows in
// the algorithm's term order.
template <typename C>
void conv_as_gemm(const Numerics& num, ConvAlgorithm algo, const ConvShape& s, const C* x,
                  const C* w, C* y) {
  const int64_t cg = s.c / s.group, mg = s.m / s.group;
  const int64_t ksize = s.g.kernel_size(), in_size = s.g.in_size(), out_size = s.g.out_size();
  const TermOrder order(algo, num, s.g, cg);
  const int64_t K = order.k_total();
  std::vector<C> cols(static_cast<size_t>(K * out_size), C(0));
  for_each_window(s.g, [&](int64_t o, const std::vector<int64_t>& taps) {
    for (int64_t c = 0; c < cg; ++c) {
      for (int64_t k = 0; k < ksize; ++k) {
        const int64_t t = taps[static_cast<size_t>(k)];
        if (t >= 0) cols[static_cast<size_t>(order.row(c, k) * out_size + o)] = x[c * in_size + t];
      }
    }
  });
  std::vector<C> wr;
  const C* a = w;  // im2col order is W's own layout
  if (algo != ConvAlgorithm::kIm2col) {
    wr.assign(static_cast<size_t>(mg * K), C(0));
    for (int64_t m = 0; m < mg; ++m) {
      for (int64_t c = 0; c < cg; ++c) {
        for (int64_t k = 0; k < ksize; ++k)
          wr[static_cast<size_t>(m * K + order.row(c, k))] = w[(m * cg + c) * ksize + k];
      }
    }
    a = wr.data();
  }
  float_gemm<C>(num, mg, out_size, K, a, K, 1, cols.data(), out_size, y, out_size);
}

// The note's description of K's order under a matrix unit.
const char* k_order_name(ConvAlgorithm algo) {
  switch (algo) {
    case ConvAlgorithm::kIm2col:
      return "(channel, tap)";
    case ConvAlgorithm::kReducedLowering:
      return "(kernel column, kernel row, channel), taps unpadded (reduced lowering)";
    default:
      return "(tap, channel) as implicit GEMM";
  }
}

}  // namespace

template <typename T>
Status conv_float(KernelContext& ctx, const ConvShape& s, const T* x, const T* w, const T* b,
                  T* y) {
  using C = compute_t<T>;
  const Numerics& num = ctx.numerics;
  const int64_t cg = s.c / s.group, mg = s.m / s.group;
  const int64_t in_size = s.g.in_size(), out_size = s.g.out_size(), ksize = s.g.kernel_size();
  const ComputeView<T> vx(x, s.n * s.c * in_size), vw(w, s.m * cg * ksize);
  ConvAlgorithm algo = num.conv;
  std::string note = std::string("conv=") + conv_algorithm_name(algo);
  const bool transformed = algo == ConvAlgorithm::kWinograd2 || algo == ConvAlgorithm::kWinograd4 ||
                           algo == ConvAlgorithm::kFft;
  if (transformed) {
    const std::string blocker = transform_blocker(s, algo);
    if (!blocker.empty()) {
      note = std::string("conv=direct (") + conv_algorithm_name(algo) + " " + blocker + ")";
      algo = ConvAlgorithm::kDirect;
    }
  }
  std::vector<C> out(static_cast<size_t>(mg * out_size));
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t g = 0; g < s.group; ++g) {
      const C* xg = vx.data() + (n * s.c + g * cg) * in_size;
      const C* wg = vw.data() + g * mg * cg * ksize;
      bool done = false;
      if (algo == ConvAlgorithm::kWinograd2 || algo == ConvAlgorithm::kWinograd4) {
        done = conv2d_winograd<C>(algo == ConvAlgorithm::kWinograd2 ? 2 : 4, problem_of(s), xg, wg,
                                  out.data(), num.acc);
      } else if (algo == ConvAlgorithm::kFft) {
        done = conv2d_fft<C>(problem_of(s), xg, wg, out.data(), num.acc);
      }
      if (!done) conv_as_gemm<C>(num, algo, s, xg, wg, out.data());
      T* yg = y + (n * s.m + g * mg) * out_size;
      for (int64_t m = 0; m < mg; ++m) {
        // Bias is added after the whole dot product (as the ONNX reference does).
        const C bias = b != nullptr ? to_compute(b[g * mg + m]) : C(0);
        for (int64_t o = 0; o < out_size; ++o) {
          const C v = out[static_cast<size_t>(m * out_size + o)];
          yg[m * out_size + o] = from_compute<T>(b != nullptr ? v + bias : v);
        }
      }
    }
  }
  if (num.mma) {
    note = "mma=" + num.mma->describe() + ", K ordered " + k_order_name(algo);
  }
  ctx.set_note(note);
  return Status::Ok();
}

template Status conv_float<float>(KernelContext&, const ConvShape&, const float*, const float*,
                                  const float*, float*);
template Status conv_float<double>(KernelContext&, const ConvShape&, const double*, const double*,
                                   const double*, double*);
template Status conv_float<Float16>(KernelContext&, const ConvShape&, const Float16*,
                                    const Float16*, const Float16*, Float16*);
template Status conv_float<BFloat16>(KernelContext&, const ConvShape&, const BFloat16*,
                                     const BFloat16*, const BFloat16*, BFloat16*);

}  // namespace ig

// Shared helpers for the neural-network operators (Conv, ConvTranspose, Gemm, MatMul, pooling,
// normalisation): the dot-product accumulator, window geometry (pads, auto_pad, strides,
// dilations) and window iteration. Every dot product of the family goes through DotAcc so that
// accumulation order / FMA / algorithm can be changed in one place.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "backends/ref/kernel_util.h"
#include "backends/ref/numerics/ordered_sum.h"
#include "core/narrow_types.h"

namespace ig {

// Reference dot-product accumulation: products added one by one in index order, in the compute
// type C, product rounded before the add (no FMA). Swapping this changes every NN op at once.
// Note: the build must not contract a*b+s into FMA (-ffp-contract=off) for this to hold on
// targets with FMA instructions.
template <typename C>
struct DotAcc {
  C sum{0};
  void add(C a, C b) { sum += a * b; }
  C value() const { return sum; }
};

// Geometry of a sliding-window op over `in.size()` spatial dims.
struct WindowGeometry {
  std::vector<int64_t> in, kernel, out, strides, dilations, pad_begin, pad_end;
  int64_t in_size() const { return shape_numel(in); }
  int64_t out_size() const { return shape_numel(out); }
  int64_t kernel_size() const { return shape_numel(kernel); }
};

// Reads strides/dilations/pads/auto_pad from the node and computes output dims (Conv and
// pooling rules; ceil_mode only for pooling). `kernel` are the spatial kernel dims.
Expected<WindowGeometry> window_geometry(const KernelContext& ctx, const Shape& in_spatial,
                                         const Shape& kernel, bool ceil_mode = false,
                                         bool use_dilations = true);

// Visits every output position (row-major) and gives the flat input offsets of the window's taps
// (kernel positions in row-major order), -1 where a tap falls into padding.
// f(out_index, const std::vector<int64_t>& taps)
template <typename F>
void for_each_window(const WindowGeometry& g, F&& f) {
  const size_t nd = g.in.size();
  const int64_t total = g.out_size();
  const int64_t ksize = g.kernel_size();
  std::vector<int64_t> opos(nd, 0), kpos(nd, 0), taps(static_cast<size_t>(ksize));
  for (int64_t o = 0; o < total; ++o) {
    std::fill(kpos.begin(), kpos.end(), 0);
    for (int64_t k = 0; k < ksize; ++k) {
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < nd; ++d) {
        const int64_t p = opos[d] * g.strides[d] - g.pad_begin[d] + kpos[d] * g.dilations[d];
        if (p < 0 || p >= g.in[d]) inside = false;
        off = off * g.in[d] + p;
      }
      taps[static_cast<size_t>(k)] = inside ? off : -1;
      for (size_t d = nd; d-- > 0;) {
        if (++kpos[d] < g.kernel[d]) break;
        kpos[d] = 0;
      }
    }
    f(o, taps);
    for (size_t d = nd; d-- > 0;) {
      if (++opos[d] < g.out[d]) break;
      opos[d] = 0;
    }
  }
}

// Number of taps of the window at each output position that lie inside [-pad_begin, in+pad_end)
// (include_pad) or inside the input; the AveragePool divisor.
std::vector<int64_t> window_counts(const WindowGeometry& g, bool include_pad);

// Channel-first tensor [N, C, spatial...] checks: rank >= min_rank, names the node.
Status expect_nchw(const KernelContext& ctx, const Tensor& x, const char* what, int min_rank = 3);

// QuantizeLinear rounding: round half to even, add the zero point, saturate to Q's range.
template <typename Q>
Q quantize_value(float scaled, int64_t zero_point) {
  const float r = std::nearbyint(scaled) + static_cast<float>(zero_point);  // ties to even
  const float lo = static_cast<float>(std::numeric_limits<Q>::lowest());
  const float hi = static_cast<float>(std::numeric_limits<Q>::max());
  if (!(r >= lo)) return std::numeric_limits<Q>::lowest();  // NaN also lands here
  if (r > hi) return std::numeric_limits<Q>::max();
  return static_cast<Q>(r);
}

// Calls f(type_tag<T>{}) for int8 / uint8 (the quantised operator types).
template <typename F>
Status dispatch_8bit(DType dt, F&& f) {
  if (dt == DType::kInt8) return f(type_tag<int8_t>{});
  if (dt == DType::kUInt8) return f(type_tag<uint8_t>{});
  return unsupported("element type {} (expected int8 or uint8)", dtype_name(dt));
}

// Per-tensor or per-axis quantisation parameter: value for index i along the axis.
struct QuantParam {
  const Tensor* t = nullptr;
  double at(int64_t i) const { return t == nullptr ? 0.0 : t->as_double(t->numel() == 1 ? 0 : i); }
  int64_t int_at(int64_t i) const {
    return t == nullptr ? 0 : t->as_int64(t->numel() == 1 ? 0 : i);
  }
};
// Checks a scale/zero-point input is a scalar or 1-D of length `n` (n = 0: scalar only).
Status expect_qparam(const KernelContext& ctx, size_t input, int64_t n);
// A quantized operand: its data input and its zero point input; kNoInput for the data of an
// output, whose type is its zero point's. `eight_bit`: the data must be int8 or uint8.
inline constexpr size_t kNoInput = static_cast<size_t>(-1);
struct QOperand {
  size_t data;
  size_t zero_point;
  bool eight_bit = true;
};
// What expect_qparam does not check, before anything is computed or allocated: every scale
// (inputs `scales`, when given) floating, finite and above 0 (0 divides by zero, a negative one
// flips the range, NaN or Inf leave no number), every operand 8-bit where it must be, and its
// zero point (when given) of the same type. Errors name the node, the input and the problem.
Status expect_quant_params(const KernelContext& ctx, std::initializer_list<size_t> scales,
                           std::initializer_list<QOperand> operands);

// The block_size attribute of ONNX Runtime's block-quantized operators: a power of 2, >= 16.
Status expect_quant_block_size(const KernelContext& ctx, int64_t block);

}  // namespace ig

namespace ig {

// Mean and population variance of load(0..count-1), variance from the second pass
// sum((x - mean)^2) / count (numpy's mean / var); both sums in the platform's order.
template <typename C, typename Load>
std::pair<C, C> mean_variance(int64_t count, Load&& load) {
  const Numerics& num = current_numerics();
  const C mean = ordered_sum<C>(num, count, load) / static_cast<C>(count);
  const C sq = ordered_sum<C>(num, count, [&](int64_t i) {
    const C d = load(i) - mean;
    return d * d;
  });
  return {mean, sq / static_cast<C>(count)};
}

// BatchNormalization / InstanceNormalization formula in the ONNX reference's operation order:
// scale * (x - mean) / sqrt(var + epsilon) + bias.
template <typename C>
C batch_norm_value(C x, C mean, C var, C epsilon, C scale, C bias) {
  return scale * (x - mean) / std::sqrt(var + epsilon) + bias;
}

}  // namespace ig

// Integer-kernel arithmetic under the platform's quantization knobs (Numerics::Quant): the int32
// convolution sum, exact or with x86's int16 pair saturation, and requantization of the sum to
// 8 bits by a float scale or by gemmlowp's fixed-point multiplier. Shared by QLinearConv,
// ConvInteger and the qdq=int groups, so one knob changes every integer kernel at once.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "backends/ref/conv_util.h"

namespace ig {

// acc (int32, bias included) -> Q: saturate(round(acc * real_scale) + zero_point).
class Requantizer {
 public:
  // scale_f: x_scale * w_scale / y_scale evaluated in float, left to right (ONNX Runtime's
  // output_scales); real: the same in double, which gemmlowp turns into multiplier and shift.
  Requantizer(float scale_f, double real, int64_t zero_point, const Numerics::Quant& q)
      : scale_(scale_f),
        zero_point_(zero_point),
        gemmlowp_(q.gemmlowp),
        away_(q.round_away),
        zp_in_float_(q.zero_point_in_float) {
    if (gemmlowp_) quantize_multiplier(real);
  }

  template <typename Q>
  Q apply(int32_t acc) const {
    return apply_sum<Q>(static_cast<float>(acc), acc);
  }
  // The same for a sum that carries a float bias (GroupBias): gemmlowp takes it rounded.
  template <typename Q>
  Q apply(float sum) const {
    const float r = std::nearbyint(sum);
    return apply_sum<Q>(sum, r > -2.1e9f && r < 2.1e9f ? static_cast<int32_t>(r) : 0);
  }

 private:
  template <typename Q>
  Q apply_sum(float sum, int32_t acc) const {
    int64_t r = 0;
    if (gemmlowp_) {
      r = multiply_by_quantized_multiplier(acc);
    } else {
      float v = sum * scale_;
      if (zp_in_float_) v += static_cast<float>(zero_point_);
      if (!std::isfinite(v))
        return v > 0 ? std::numeric_limits<Q>::max() : std::numeric_limits<Q>::lowest();
      const float rounded = away_ ? std::round(v) : std::nearbyint(v);  // nearbyint: ties to even
      r = static_cast<int64_t>(std::clamp(rounded, -1e18f, 1e18f));
    }
    if (gemmlowp_ || !zp_in_float_) r += zero_point_;
    return static_cast<Q>(
        std::clamp<int64_t>(r, std::numeric_limits<Q>::lowest(), std::numeric_limits<Q>::max()));
  }

  // TFLite's QuantizeMultiplier: real = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31).
  void quantize_multiplier(double real) {
    if (!(real > 0) || !std::isfinite(real))
      return;  // multiplier 0: every output is the zero point
    int exponent = 0;
    const double q = std::frexp(real, &exponent);
    auto fixed = static_cast<int64_t>(std::llround(q * static_cast<double>(int64_t{1} << 31)));
    if (fixed == (int64_t{1} << 31)) {
      fixed /= 2;
      ++exponent;
    }
    if (exponent < -31) return;
    multiplier_ = static_cast<int32_t>(fixed);
    shift_ = exponent;
  }
  // gemmlowp's SaturatingRoundingDoublingHighMul then RoundingDivideByPOT (both round half
  // away from zero), as TFLite's MultiplyByQuantizedMultiplier composes them.
  int64_t multiply_by_quantized_multiplier(int32_t x) const {
    if (multiplier_ == 0) return 0;
    const int left = shift_ > 0 ? shift_ : 0;
    const int right = shift_ > 0 ? 0 : -shift_;
    const int64_t shifted = static_cast<int64_t>(x) * (int64_t{1} << left);
    const auto a = static_cast<int32_t>(std::clamp<int64_t>(
        shifted, std::numeric_limits<int32_t>::lowest(), std::numeric_limits<int32_t>::max()));
    int32_t high = 0;
    if (a == std::numeric_limits<int32_t>::lowest() &&
        multiplier_ == std::numeric_limits<int32_t>::lowest()) {
      high = std::numeric_limits<int32_t>::max();
    } else {
      const int64_t ab = static_cast<int64_t>(a) * multiplier_;
      const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
      high = static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
    }
    if (right == 0) return high;
    if (right > 31) return 0;
    const int32_t mask = static_cast<int32_t>((int64_t{1} << right) - 1);
    const int32_t remainder = high & mask;
    const int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    return (high >> right) + (remainder > threshold ? 1 : 0);
  }

  float scale_;
  int64_t zero_point_;
  bool gemmlowp_, away_, zp_in_float_;
  int32_t multiplier_ = 0;
  int shift_ = 0;
};

// The integer bounds a fused Relu or Clip (attributes clip_min / clip_max of a qdq=int group
// node, qdq_groups.h) puts on a quantized output: Q(min) and Q(max), quantizing being monotone.
template <typename Q>
struct OutputClamp {
  Q lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
  OutputClamp(const Node& node, float y_scale, int64_t y_zp) {
    if (node.has_attr("clip_min"))
      lo = quantize_value<Q>(node.attr_float("clip_min", 0) / y_scale, y_zp);
    if (node.has_attr("clip_max"))
      hi = quantize_value<Q>(node.attr_float("clip_max", 0) / y_scale, y_zp);
  }
  Q operator()(Q q) const { return std::min(std::max(q, lo), hi); }
};

// A float-output group (no QuantizeLinear, qdq_groups.h): acc (int32, bias included, in
// full-weight units: with_bias) times x_scale * w_scale[m], the product taken in double and
// rounded once to float, as our oneDNN adapter hands oneDNN its output scales; then the fused Relu
// or Clip on the floats.
class FloatRescale {
 public:
  FloatRescale(const Node& node, float x_scale, const QuantParam& w_scale, int64_t channels)
      : lo_(node.attr_float("clip_min", -INFINITY)), hi_(node.attr_float("clip_max", INFINITY)) {
    scales_.reserve(static_cast<size_t>(channels));
    for (int64_t m = 0; m < channels; ++m)
      scales_.push_back(static_cast<float>(static_cast<double>(x_scale) * w_scale.at(m)));
  }
  float apply(int32_t acc, int64_t m) const { return apply(static_cast<float>(acc), m); }
  float apply(float sum, int64_t m) const {
    const float v = sum * scales_[static_cast<size_t>(m)];
    // max/min as vmaxps and vminps order them: a NaN stays NaN.
    return std::isnan(v) ? v : std::min(std::max(v, lo_), hi_);
  }

 private:
  float lo_, hi_;
  std::vector<float> scales_;
};

// wbits=7: each weight halved around its zero point and rounded to even, as oneDNN's reorder
// does with its 0.5 scale; the sum is then worth weight_factor() times more.
inline int32_t halve_weight(int32_t w, int64_t zero_point) {
  const auto zp = static_cast<float>(zero_point);
  return static_cast<int32_t>(std::nearbyint((static_cast<float>(w) - zp) * 0.5f) + zp);
}
template <typename TW>
std::vector<TW> halve_weights(const TW* w, int64_t count, const QuantParam& w_zp,
                              int64_t per_channel) {
  std::vector<TW> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    out[static_cast<size_t>(i)] =
        static_cast<TW>(halve_weight(w[i], w_zp.int_at(per_channel > 0 ? i / per_channel : 0)));
  return out;
}
inline int32_t weight_factor(const Numerics::Quant& q) { return q.half_weights ? 2 : 1; }
// A group's sum in full-weight units with its int32 bias: oneDNN scales the halved weights' sum
// back before it adds the bias (measured: adding the bias to the halved sum and doubling both
// is 3 steps off oneDNN avx2's s8 x s8 convolution in 90% of elements).
inline int32_t with_bias(int32_t acc, int32_t factor, const int32_t* bias) {
  return acc * factor + (bias ? *bias : 0);
}

// Input 8 (the bias), when present: int32 with one value per output channel (`channels`), or
// also float in a qdq=int group (`group`, GroupBias below).
inline Status check_group_bias(const KernelContext& ctx, int64_t channels, bool group) {
  if (!ctx.has_input(8)) return Status::Ok();
  const Tensor& b = ctx.input(8);
  const bool type_ok = b.dtype() == DType::kInt32 || (group && b.dtype() == DType::kFloat32);
  if (type_ok && (b.numel() == channels || b.numel() == 1)) return Status::Ok();
  return ctx.fail("bias B {} must be {}[{}]", b.describe(), group ? "int32 or float" : "int32",
                  channels);
}

// A qdq=int group's bias (its node's input 8): int32 in the accumulator's units, added exactly
// (with_bias), or float as NNCF writes it, which oneDNN takes divided by x_scale * w_scale[m] (in
// double, rounded to float: our adapter's acc_bias) and adds to the float sum. `sum(acc, m)` is
// the sum in full-weight units with the bias, exact while the bias is int32.
class GroupBias {
 public:
  GroupBias(const Tensor* b, float x_scale, const QuantParam& w_scale, int64_t channels,
            int32_t factor)
      : factor_(factor) {
    if (!b) return;
    if (b->dtype() == DType::kInt32) {
      ints_ = b->data<int32_t>();
      per_channel_ = b->numel() != 1;
      return;
    }
    for (int64_t m = 0; m < channels; ++m)
      floats_.push_back(static_cast<float>(b->as_double(b->numel() == 1 ? 0 : m) /
                                           (static_cast<double>(x_scale) * w_scale.at(m))));
  }
  bool is_float() const { return !floats_.empty(); }
  int32_t int_sum(int32_t acc, int64_t m) const {
    return with_bias(acc, factor_, ints_ ? ints_ + (per_channel_ ? m : 0) : nullptr);
  }
  float float_sum(int32_t acc, int64_t m) const {
    return static_cast<float>(acc * factor_) + floats_[static_cast<size_t>(m)];
  }

 private:
  int32_t factor_;
  const int32_t* ints_ = nullptr;
  bool per_channel_ = true;
  std::vector<float> floats_;
};

// The int32 convolution of 8-bit X and W with their zero points: store(out_index, m, acc).
// Exact by default. madd=sat16 with u8 X and s8 W of zero point 0 sums raw u8 x s8 products in
// pairs of adjacent input channels at one kernel tap (an odd last channel pairs with a zero
// weight; a tap in the padding reads the zero point, as the libraries pad), saturates each pair
// to int16 as vpmaddubsw does, adds the pairs in int32 and then takes x_zp * sum(w) off.
// Returns how many pair sums saturated.
template <typename TX, typename TW, typename Store>
int64_t conv_int32_sums(const ConvShape& s, const TX* px, const TW* pw, int32_t x_zp,
                        const QuantParam& w_zp, const Numerics::Quant& q, Store&& store) {
  const int64_t w_per_m = s.m > 0 ? s.c / s.group * s.g.kernel_size() : 0;
  bool weights_zero_point_0 = true;
  for (int64_t m = 0; m < s.m && weights_zero_point_0; ++m)
    weights_zero_point_0 = w_zp.int_at(m) == 0;
  const bool pairs = q.saturate_pairs && std::is_same_v<TX, uint8_t> &&
                     std::is_same_v<TW, int8_t> && weights_zero_point_0;
  if (!pairs) {
    conv_direct<int32_t>(
        s, [&](int64_t i) { return static_cast<int32_t>(px[i]) - x_zp; },
        [&](int64_t i) {
          return static_cast<int32_t>(pw[i]) - static_cast<int32_t>(w_zp.int_at(i / w_per_m));
        },
        store);
    return 0;
  }
  const int64_t cg = s.c / s.group, mg = s.m / s.group;
  const int64_t in_size = s.g.in_size(), out_size = s.g.out_size(), ksize = s.g.kernel_size();
  int64_t saturated = 0;
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t m = 0; m < s.m; ++m) {
      const int64_t x_base = (n * s.c + (m / mg) * cg) * in_size;
      const TW* w = pw + m * w_per_m;
      int32_t w_sum = 0;
      for (int64_t i = 0; i < w_per_m; ++i) w_sum += w[i];
      const int64_t y_base = (n * s.m + m) * out_size;
      for_each_window(s.g, [&](int64_t o, const std::vector<int64_t>& taps) {
        int32_t acc = 0;
        for (int64_t k = 0; k < ksize; ++k) {
          const int64_t t = taps[static_cast<size_t>(k)];
          auto x_at = [&](int64_t c) {
            return t < 0 ? x_zp : static_cast<int32_t>(px[x_base + c * in_size + t]);
          };
          for (int64_t c = 0; c < cg; c += 2) {
            int32_t pair = x_at(c) * static_cast<int32_t>(w[c * ksize + k]);
            if (c + 1 < cg) pair += x_at(c + 1) * static_cast<int32_t>(w[(c + 1) * ksize + k]);
            const int32_t clamped = std::clamp<int32_t>(pair, -32768, 32767);
            saturated += clamped != pair;
            acc += clamped;
          }
        }
        store(y_base + o, m, acc - x_zp * w_sum);
      });
    }
  }
  return saturated;
}

// The int32 product of 8-bit rows X[r, k] (zero point x_zp) and W[k, n] (zero point w_zp[n]),
// x_at(r, k) / w_at(k, n) giving the stored integers: store(r, n, acc). madd=sat16 pairs adjacent
// k as conv_int32_sums pairs channels. Returns how many pair sums saturated.
template <typename XAt, typename WAt, typename Store>
int64_t gemm_int32_sums(int64_t rows, int64_t k_size, int64_t n_size, XAt&& x_at, WAt&& w_at,
                        int32_t x_zp, const QuantParam& w_zp, bool pairs_apply,
                        const Numerics::Quant& q, Store&& store) {
  const bool pairs = q.saturate_pairs && pairs_apply;
  int64_t saturated = 0;
  for (int64_t n = 0; n < n_size; ++n) {
    const auto wz = static_cast<int32_t>(w_zp.int_at(n));
    int32_t w_sum = 0;
    for (int64_t k = 0; k < k_size; ++k) w_sum += static_cast<int32_t>(w_at(k, n));
    for (int64_t r = 0; r < rows; ++r) {
      int32_t acc = 0;
      if (!pairs) {
        for (int64_t k = 0; k < k_size; ++k)
          acc +=
              (static_cast<int32_t>(x_at(r, k)) - x_zp) * (static_cast<int32_t>(w_at(k, n)) - wz);
      } else {
        for (int64_t k = 0; k < k_size; k += 2) {
          int32_t pair = static_cast<int32_t>(x_at(r, k)) * static_cast<int32_t>(w_at(k, n));
          if (k + 1 < k_size)
            pair += static_cast<int32_t>(x_at(r, k + 1)) * static_cast<int32_t>(w_at(k + 1, n));
          const int32_t clamped = std::clamp<int32_t>(pair, -32768, 32767);
          saturated += clamped != pair;
          acc += clamped;
        }
        acc -= x_zp * w_sum;
      }
      store(r, n, acc);
    }
  }
  return saturated;
}

}  // namespace ig

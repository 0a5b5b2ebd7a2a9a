// The arithmetic of matrix_unit.h. Values are exact until a step rounds: products of inputs of at
// most 24 bits are exact in double, aligned sums are exact 64-bit integers, and two-term sums are
// rounded to odd in double (TwoSum) before the one rounding to the target format.
#include "backends/ref/numerics/matrix_unit.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>

namespace ig {

namespace {

constexpr double kFlt = static_cast<double>(FLT_MAX);
const MmaFormat kFormats[] = {
    {"fp32", 23, -126, kFlt},
    {"tf32", 10, -126, 0x1.ffcp127},
    {"fp16", 10, -14, 65504.0},
    {"bf16", 7, -126, 0x1.fep127},
    {"e4m3", 3, -6, 448.0},  // OCP FP8 E4M3 (fn): no infinities, 0x7F is NaN
    {"e5m2", 2, -14, 57344.0},
    {"e4m3fnuz", 3, -7, 240.0},  // AMD CDNA3's FP8: bias 8, no -0
    {"e5m2fnuz", 2, -15, 57344.0},
    {"e8m13", 13, -126, 0x1.fffcp127},  // fp32 with 13 fraction bits (NVIDIA Ada/Hopper fp8 sums)
};

// (-1)^neg * mag * 2^exp2, with `sticky` standing for nonzero bits below mag, rounded to `f`
// (gradual underflow below 2^emin). Past the largest finite value: infinity, or the largest
// finite value with `saturate`.
double round_to(bool neg, uint64_t mag, int exp2, bool sticky, const MmaFormat& f, MmaRounding r,
                bool saturate) {
  if (mag == 0) return neg ? -0.0 : 0.0;
  const int msb = 63 - std::countl_zero(mag);
  const int e = msb + exp2;
  int q = std::max(e, f.emin) - f.mant;  // the exponent of the last kept bit
  const int shift = q - exp2;
  uint64_t kept = mag;
  if (shift <= 0) {
    q = exp2;
  } else {
    bool above = false, tie = false, inexact = sticky;
    if (shift > 64) {
      kept = 0;
      inexact = true;  // mag < 2^64 <= half an ulp
    } else if (shift == 64) {
      kept = 0;
      const uint64_t half = uint64_t{1} << 63;
      above = mag > half || (mag == half && sticky);
      tie = mag == half && !sticky;
      inexact = true;
    } else {
      kept = mag >> shift;
      const uint64_t rem = mag & ((uint64_t{1} << shift) - 1);
      const uint64_t half = uint64_t{1} << (shift - 1);
      above = rem > half || (rem == half && sticky);
      tie = rem == half && !sticky;
      inexact = inexact || rem != 0;
    }
    if (r == MmaRounding::kRne && (above || (tie && (kept & 1)))) ++kept;
    if (r == MmaRounding::kRo && inexact) kept |= 1;
  }
  double v = std::ldexp(static_cast<double>(kept), q);
  if (v > f.max) v = saturate ? f.max : std::numeric_limits<double>::infinity();
  return neg ? -v : v;
}

double round_double(double x, const MmaFormat& f, MmaRounding r, bool saturate) {
  if (!std::isfinite(x) || x == 0) return x;
  int e = 0;
  const double fr = std::frexp(std::fabs(x), &e);
  const auto mag = static_cast<uint64_t>(std::ldexp(fr, 53));
  return round_to(std::signbit(x), mag, e - 53, false, f, r, saturate);
}

// x + y rounded once to `f`: the double sum rounded to odd (TwoSum's error decides the last bit)
// keeps enough bits that the final rounding is correct.
double round_sum2(double x, double y, const MmaFormat& f, MmaRounding r) {
  double s = x + y;
  if (!std::isfinite(s)) return s;
  const double bb = s - x;
  const double err = (x - (s - bb)) + (y - bb);
  if (err != 0 && (std::bit_cast<uint64_t>(s) & 1) == 0)
    s = std::nextafter(s, err > 0 ? std::numeric_limits<double>::infinity()
                                  : -std::numeric_limits<double>::infinity());
  return round_double(s, f, r, false);
}

double flush(double v, int emin, bool keep_sign) {
  // 2^emin for the formats' emin (-126 .. -6), without a call to ldexp.
  const double tiny = std::bit_cast<double>(static_cast<uint64_t>(1023 + emin) << 52);
  if (std::fabs(v) < tiny) return keep_sign ? std::copysign(0.0, v) : 0.0;
  return v;
}

// A finite value as m * 2^(e - mant) with e >= the format's emin (the alignment exponent of the
// characterisations: 1 <= m / 2^mant < 2 for normal values).
struct Term {
  bool neg = false;
  uint64_t m = 0;
  int e = 0;
  int scale = 0;  // the value is m * 2^(e - scale)
};
Term decompose(double v, const MmaFormat& f) {
  Term t{std::signbit(v), 0, f.emin, f.mant};
  if (v == 0) return t;
  const auto fv = static_cast<float>(v);  // every value here is a float (inputs, accumulators)
  const uint32_t u = std::bit_cast<uint32_t>(fv);
  const int biased = static_cast<int>((u >> 23) & 0xFF);
  if (biased != 0) {  // a normal float: its significand, shifted to the format's fraction bits
    const int e = biased - 127;
    const uint64_t sig = (u & 0x7FFFFF) | 0x800000;
    t.e = std::max(e, f.emin);
    t.m = sig >> (23 - f.mant + (t.e - e));
    return t;
  }
  int x = 0;
  std::frexp(std::fabs(v), &x);
  t.e = std::max(x - 1, f.emin);
  t.m = static_cast<uint64_t>(std::ldexp(std::fabs(v), f.mant - t.e));
  return t;
}

// s * 2^e with 1 <= |s| < 2 (smaller below 2^emin), as the two-stage units align.
struct Scaled {
  double s;
  int e;
};
Scaled normalize(double v, int emin) {
  if (v == 0 || !std::isfinite(v)) return {v, emin};
  int x = 0;
  const double fr = std::frexp(v, &x);
  if (x - 1 < emin) return {std::ldexp(v, -emin), emin};
  return {fr * 2, x - 1};
}

constexpr size_t kMaxK = 64;  // mma-k's bound

// One step's operands (k of them, zero-padded), on the stack.
struct Operands {
  std::array<double, kMaxK> v;
  size_t n;
  size_t size() const { return n; }
  double operator[](size_t i) const { return v[i]; }
};

class Dot {
 public:
  Dot(const MatrixUnit& u)
      : u_(u),
        in_(mma_format(u.in)),
        acc_(mma_format(u.accfmt)),
        cfmt_(mma_format(u.accfmt == "fp16" ? "fp16" : "fp32")),
        fast_add_(u.accfmt == "fp32" && u.out == MmaRounding::kRne && in_.mant <= 10 &&
                  !u.round_products),
        chain_(fast_add_ && u.family == MmaFamily::kFused && u.bits == kMmaExactBits &&
               !u.acc_last && (u.k == 1 || (u.k == 2 && u.odd_first))) {}

  float run(const float* a, int64_t sa, const float* b, int64_t sb, int64_t K, float c) {
    if (chain_) return chain(a, sa, b, sb, K, c);
    double acc = c;
    if (u_.family == MmaFamily::kTree) acc = flush(acc, -126, false);
    Operands pa{}, pb{};
    pa.n = pb.n = static_cast<size_t>(u_.k);
    for (int64_t i0 = 0; i0 < K; i0 += u_.k) {
      const int64_t n = std::min<int64_t>(u_.k, K - i0);
      std::fill_n(pa.v.begin(), pa.n, 0.0);
      std::fill_n(pb.v.begin(), pb.n, 0.0);
      for (int64_t i = 0; i < n; ++i) {
        pa.v[static_cast<size_t>(i)] = operand(a, (i0 + i) * sa);
        pb.v[static_cast<size_t>(i)] = operand(b, (i0 + i) * sb);
      }
      acc = step(pa, pb, acc);
    }
    float out = static_cast<float>(acc);
    // All fraction bits set: 0x7FFFFFFF, or fp16's 0x7FFF widened to float.
    if (std::isnan(out) && u_.canonical_nan)
      out = std::bit_cast<float>(u_.accfmt == "fp16" ? uint32_t{0x7FFFE000} : uint32_t{0x7FFFFFFF});
    return out;
  }

 private:
  // An operand as the unit reads it: subnormals as zero of their sign where it flushes inputs.
  double operand(const float* p, int64_t at) const {
    const double v = p[at];
    return u_.daz ? flush(v, in_.emin, true) : v;
  }

  // An FMA chain into fp32 with nearest rounding (bits=exact, add()'s fast case): the same
  // arithmetic as the steps, without their bookkeeping. With odd_first each pair's second
  // product goes first (a last, unpaired term's missing partner adds zero).
  float chain(const float* a, int64_t sa, const float* b, int64_t sb, int64_t K, float c) const {
    auto product = [&](int64_t i) { return i < K ? operand(a, i * sa) * operand(b, i * sb) : 0.0; };
    float acc = c;
    auto add = [&](double p) {
      acc = static_cast<float>(static_cast<double>(acc) + p);
      if (u_.ftz) acc = static_cast<float>(flush(acc, acc_.emin, true));
    };
    const bool pairs = u_.odd_first && u_.k == 2;
    for (int64_t i = 0; i < K; i += pairs ? 2 : 1) {
      if (pairs) add(product(i + 1));
      add(product(i));
    }
    return acc;
  }

  double finish(double v) const {
    if (u_.ftz) v = flush(v, acc_.emin, true);
    return v;
  }

  // NaN or infinity among the step's operands: IEEE's answer (the aligned paths take finite
  // values only). With `overflow`, a product past fp32's range counts as infinite (CDNA3 takes
  // products in fp32's exponent range before it aligns them).
  static bool special(const Operands& a, const Operands& b, double c, bool with_c, double* out,
                      bool overflow = false) {
    bool pos = false, neg = false, nan = false;
    auto see = [&](double v) {
      if (std::isnan(v)) nan = true;
      if (std::isinf(v)) (v > 0 ? pos : neg) = true;
    };
    for (size_t i = 0; i < a.size(); ++i) {
      const double p = a[i] * b[i];
      see(overflow && std::fabs(p) >= 0x1p128 ? p * std::numeric_limits<double>::infinity() : p);
    }
    if (with_c) see(c);
    if (!nan && !pos && !neg) return false;
    const double inf = std::numeric_limits<double>::infinity();
    *out = (nan || (pos && neg)) ? std::numeric_limits<double>::quiet_NaN() : (pos ? inf : -inf);
    return true;
  }

  double step(const Operands& a, const Operands& b, double c) const {
    switch (u_.family) {
      case MmaFamily::kFused:
        return u_.bits == kMmaExactBits ? exact_step(a, b, c) : fused_step(a, b, c);
      case MmaFamily::kTwoStage:
      case MmaFamily::kTwoStageEvenOdd:
        return two_stage_step(a, b, c);
      case MmaFamily::kTree:
        return tree_step(a, b, c);
      case MmaFamily::kInterleaved:
        return interleaved_step(a, b, c);
    }
    return c;
  }

  double fused_step(const Operands& a, const Operands& b, double c) const {
    double sp = 0;
    if (special(a, b, c, !u_.acc_last, &sp)) {
      return u_.acc_last ? round_sum2(sp, c, acc_, u_.out) : sp;
    }
    std::array<Term, kMaxK + 1> terms;
    size_t nt = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const Term x = decompose(a[i], in_), y = decompose(b[i], in_);
      Term p{x.neg != y.neg, x.m * y.m, x.e + y.e, 2 * in_.mant};
      if (p.m == 0) p.e = u_.e_zero;
      terms[nt++] = p;
    }
    if (!u_.acc_last) {
      Term t = decompose(c, cfmt_);
      if (t.m == 0) t.e = u_.e_zero;
      terms[nt++] = t;
    }
    int e_max = kMmaNoZeroExponent;
    for (size_t i = 0; i < nt; ++i) e_max = std::max(e_max, terms[i].e);
    int64_t sum = 0;
    bool all_negative_zero = true;
    for (size_t i = 0; i < nt; ++i) {
      const Term& t = terms[i];
      all_negative_zero = all_negative_zero && t.m == 0 && t.neg;
      const int sh = t.e - e_max + u_.bits - t.scale;
      const uint64_t v = sh >= 0 ? t.m << sh : (-sh >= 64 ? 0 : t.m >> -sh);
      sum += t.neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    }
    double r = 0;
    if (sum == 0) {
      r = (all_negative_zero && !u_.positive_zero) ? -0.0 : 0.0;
    } else {
      const uint64_t mag = sum < 0 ? static_cast<uint64_t>(-sum) : static_cast<uint64_t>(sum);
      r = round_to(sum < 0, mag, e_max - u_.bits, false, acc_, u_.out, false);
    }
    r = finish(r);
    if (u_.acc_last) r = finish(round_sum2(r, c, acc_, u_.out));
    if (u_.positive_zero && r == 0) r = 0.0;
    return r;
  }

  // One rounded addition. Where the accumulator is fp32 with nearest rounding and a term has at
  // most 22 significant bits (a product of fp16, bf16 or tf32 values), the double sum is exact or
  // too far from a float midpoint to round twice: one float conversion is the correct rounding.
  double add(double x, double y) const {
    if (fast_add_) return static_cast<float>(x + y);
    return round_sum2(x, y, acc_, u_.out);
  }

  // bits=exact: each product added to the accumulator with one rounding (a chain of FMAs), or
  // with acc=last the step's products summed that way and their sum then added.
  double exact_step(const Operands& a, const Operands& b, double c) const {
    std::array<double, kMaxK> p{};
    const size_t n = a.size();
    for (size_t i = 0; i < n; ++i) {
      p[i] = a[i] * b[i];
      if (u_.round_products) p[i] = finish(round_double(p[i], acc_, u_.out, false));
    }
    if (u_.odd_first) {
      for (size_t i = 0; i + 1 < n; i += 2) std::swap(p[i], p[i + 1]);
    }
    if (!u_.acc_last) {
      for (size_t i = 0; i < n; ++i) c = finish(add(c, p[i]));
      return c;
    }
    double s = p[0];
    for (size_t i = 1; i < n; ++i) s = finish(round_sum2(s, p[i], acc_, u_.out));
    if (n == 1) s = finish(round_double(s, acc_, u_.out, false));
    return finish(round_sum2(c, s, acc_, u_.out));
  }

  // Products fused with `bits` kept (truncated), in one group or as even and odd groups.
  Scaled fused_products(const Operands& a, const Operands& b, size_t first, size_t stride,
                        bool overflow_rule) const {
    std::array<Scaled, kMaxK> p;
    size_t np = 0;
    for (size_t i = first; i < a.size(); i += stride) {
      const Scaled x = normalize(a[i], in_.emin), y = normalize(b[i], in_.emin);
      Scaled t{x.s * y.s, x.e + y.e};
      if (overflow_rule && (std::fabs(t.s) >= 2 ? 1 : 0) + t.e >= 128)
        t.s *= std::numeric_limits<double>::infinity();
      if (t.s == 0) t.e = kMmaNoZeroExponent;
      p[np++] = t;
    }
    int e_max = kMmaNoZeroExponent;
    for (size_t i = 0; i < np; ++i) e_max = std::max(e_max, p[i].e);
    double sum = 0;
    for (size_t i = 0; i < np; ++i) {
      const Scaled& t = p[i];
      sum += std::ldexp(std::trunc(std::ldexp(t.s, t.e - e_max + u_.bits)), -u_.bits);
    }
    return {sum, e_max};
  }

  double two_stage_step(const Operands& a, const Operands& b, double c) const {
    double sp = 0;
    if (special(a, b, c, true, &sp, u_.family == MmaFamily::kTwoStage)) return sp;
    const int F = u_.bits, F2 = u_.bits2;
    Scaled dot{};
    if (u_.family == MmaFamily::kTwoStage) {
      dot = fused_products(a, b, 0, 1, true);
    } else {
      const Scaled even = fused_products(a, b, 0, 2, false);
      const Scaled odd = fused_products(a, b, 1, 2, false);
      dot.e = std::max(even.e, odd.e);
      dot.s = std::ldexp(std::floor(std::ldexp(even.s, even.e - dot.e + F)), -F) +
              std::ldexp(std::floor(std::ldexp(odd.s, odd.e - dot.e + F)), -F);
    }
    const Scaled cs = normalize(c, -126);
    const int e_max = std::max(dot.e, cs.e);
    const double sd = std::ldexp(std::floor(std::ldexp(dot.s, dot.e - e_max + F2 + 1)), -(F2 + 1));
    double sc = std::ldexp(std::floor(std::ldexp(cs.s, cs.e - e_max + F)), -F);
    if (u_.family == MmaFamily::kTwoStageEvenOdd && cs.e < e_max - F - 1) sc = 0;
    const Scaled sum = normalize(std::ldexp(sd + sc, e_max), -126);
    const double kept = std::ldexp(std::floor(std::ldexp(sum.s, F2)), -F2);
    return finish(static_cast<double>(static_cast<float>(std::ldexp(kept, sum.e))));
  }

  // Products rounded to fp32, summed in pairs (and pairs of pairs), subnormals flushed.
  double tree_step(const Operands& a, const Operands& b, double c) const {
    auto add = [](float x, float y) { return static_cast<float>(flush(x + y, -126, true)); };
    std::array<float, kMaxK> p;
    for (size_t i = 0; i < a.size(); ++i) {
      const float x = static_cast<float>(flush(a[i], in_.emin, false));
      const float y = static_cast<float>(flush(b[i], in_.emin, false));
      p[i] = static_cast<float>(flush(x * y, -126, true));
    }
    float s = add(p[0], a.size() > 1 ? p[1] : 0.0f);
    if (a.size() == 4) s = add(s, add(p[2], p[3]));
    return add(static_cast<float>(c), s);
  }

  // Two chains, even and odd products, from zero; their sum added to the accumulator.
  double interleaved_step(const Operands& a, const Operands& b, double c) const {
    double even = 0, odd = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      double& chain = i % 2 == 0 ? even : odd;
      chain = finish(round_sum2(chain, a[i] * b[i], acc_, u_.out));
    }
    return finish(round_sum2(c, finish(round_sum2(even, odd, acc_, u_.out)), acc_, u_.out));
  }

  const MatrixUnit& u_;
  const MmaFormat& in_;
  const MmaFormat& acc_;
  const MmaFormat& cfmt_;
  const bool fast_add_;
  const bool chain_;
};

}  // namespace

const MmaFormat& mma_format(const std::string& name) {
  for (const MmaFormat& f : kFormats) {
    if (name == f.name) return f;
  }
  return kFormats[0];
}

std::vector<std::string> mma_format_names() {
  std::vector<std::string> out;
  for (const MmaFormat& f : kFormats) {
    if (std::string(f.name) != "e8m13") out.push_back(f.name);  // an accumulator format only
  }
  return out;
}

float mma_input(const MatrixUnit& u, float v) {
  if (!std::isfinite(v)) return v;
  const MmaFormat& f = mma_format(u.in);
  if (u.in_truncate) return static_cast<float>(round_double(v, f, MmaRounding::kRz, true));
  const bool fp8 = f.mant <= 3;
  return static_cast<float>(round_double(v, f, MmaRounding::kRne, fp8));
}

float mma_dot(const MatrixUnit& u, const float* a, int64_t sa, const float* b, int64_t sb,
              int64_t K, float c) {
  return Dot(u).run(a, sa, b, sb, K, c);
}

void mma_gemm(const MatrixUnit& u, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
              int64_t a_col_stride, const float* B, int64_t ldb, float* C, int64_t ldc) {
  std::vector<float> a(static_cast<size_t>(M * K)), bt(static_cast<size_t>(N * K));
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t k = 0; k < K; ++k)
      a[static_cast<size_t>(m * K + k)] = mma_input(u, A[m * lda + k * a_col_stride]);
  }
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t j = 0; j < N; ++j)
      bt[static_cast<size_t>(j * K + k)] = mma_input(u, B[k * ldb + j]);
  }
  Dot dot(u);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t j = 0; j < N; ++j) {
      C[m * ldc + j] = dot.run(a.data() + m * K, 1, bt.data() + j * K, 1, K, 0.0f);
    }
  }
}

}  // namespace ig

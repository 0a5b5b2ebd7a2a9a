// An emulator of matrix units (tensor cores, matrix cores, AMX, BF16/FP16 dot-product
// instructions): dot products computed the way the unit computes them, bit for bit, from the
// published characterisations (each preset names its source in matrix_unit_presets.cpp).
//
// A dot product of K terms runs as a chain of steps of `k` products each, K in the stated order;
// what one step does is the unit's family:
//  - fused: the step's products (exact) and the accumulator are aligned to the largest exponent,
//    each keeps `bits` fraction bits below it (truncated), the sum is exact and is rounded once
//    to the accumulator format (NVIDIA tensor cores). acc=last adds the accumulator after the
//    products' sum is rounded. bits=exact loses nothing to alignment: the terms are added one
//    at a time, each addition rounded once (a chain of FMAs: Intel's dot-product instructions);
//    with acc=last the step's products are summed that way first (Arm BFDOT's fused pair).
//  - two-stage: the products are fused as above, then added to the accumulator in a second
//    alignment that keeps `bits2` bits, floored, then rounded (AMD CDNA3).
//  - two-stage-eo: the same with even and odd products fused apart first (CDNA3 fp8).
//  - tree: products rounded to fp32 and summed pairwise in groups of k, flushing subnormals
//    (AMD CDNA2).
//  - interleaved: two fp32 chains, even and odd products, within each step of k, then added
//    together and to the accumulator (Intel AMX TDPBF16PS).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

// Number formats the units read and write: fraction bits, the smallest normal exponent, the
// largest finite value.
struct MmaFormat {
  const char* name;
  int mant;
  int emin;
  double max;
};
const MmaFormat& mma_format(const std::string& name);  // an input format, or e8m13
std::vector<std::string> mma_format_names();           // the input formats

enum class MmaFamily { kFused, kTwoStage, kTwoStageEvenOdd, kTree, kInterleaved };
enum class MmaRounding { kRz, kRne, kRo };  // toward zero, nearest even, to odd (Arm)

constexpr int kMmaExactBits = 0;             // bits=exact: no alignment loss
constexpr int kMmaNoZeroExponent = -100000;  // zero products take no part in the alignment

struct MatrixUnit {
  std::string preset = "custom";
  MmaFamily family = MmaFamily::kFused;
  std::string in = "fp16";      // input format (mma_format)
  bool in_truncate = false;     // fp32 values enter by truncation (NVIDIA tf32), else RNE
  int k = 1;                    // products per step
  int bits = kMmaExactBits;     // kept fraction bits below the step's largest exponent
  int bits2 = 0;                // two-stage: bits of the second alignment
  bool acc_last = false;        // fused: the accumulator is added after the products are rounded
  bool round_products = false;  // each product rounded to the accumulator format (Arm, EBF=0)
  MmaRounding out = MmaRounding::kRne;  // rounding of each step's result
  std::string accfmt = "fp32";          // accumulator and output format: fp32, fp16, e8m13
  bool daz = false;                     // subnormal inputs read as zero
  bool ftz = false;                     // subnormal results flushed to zero
  bool odd_first = false;      // each pair's odd product first (Intel VDPBF16PS per the SDM)
  bool positive_zero = false;  // a zero result is +0 whatever the signs (NVIDIA)
  // A convolution's channels at each kernel tap padded with zeros to a multiple of this: the
  // pairs of a VNNI layout never straddle two taps (x86 bf16 kernels: 2; mma-pad).
  int pad_channels = 1;
  int e_zero = kMmaNoZeroExponent;  // the exponent zero terms take in the alignment (NVIDIA)
  bool canonical_nan = false;       // NaN results are 0x7FFFFFFF (NVIDIA), else the default NaN

  // "h100-fp16" or "custom (fused, fp16, k=16, bits=25, rz, e_zero=-133)".
  std::string describe() const;
};

struct MmaPreset {
  std::string name;
  std::string unit;    // the hardware and instruction it models
  std::string source;  // where its arithmetic is characterised
  MatrixUnit config;
};
const std::vector<MmaPreset>& mma_presets();
std::vector<std::string> mma_preset_names();

// The knobs behind the presets, for the ref backend: `mma=PRESET` first, then each of
// mma-in, mma-k, mma-bits, mma-out, mma-accfmt, mma-acc, mma-sub, mma-pad changing one parameter.
const std::map<std::string, std::string>& mma_knobs();
bool is_mma_key(const std::string& key);  // mma or mma-*
Expected<MatrixUnit> parse_matrix_unit(const std::map<std::string, std::string>& options);

// Converts a value to the unit's input format (RNE or truncation; fp8 saturates).
float mma_input(const MatrixUnit& u, float v);
// c + sum_i a[i * sa] * b[i * sb], inputs already in the unit's input format, the steps in order.
float mma_dot(const MatrixUnit& u, const float* a, int64_t sa, const float* b, int64_t sb,
              int64_t K, float c);
// C[m * ldc + j] = sum_k A[m * lda + k * a_col_stride] * B[k * ldb + j] through the unit
// (inputs converted first).
void mma_gemm(const MatrixUnit& u, int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
              int64_t a_col_stride, const float* B, int64_t ldb, float* C, int64_t ldc);

}  // namespace ig

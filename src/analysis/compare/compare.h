// One generic comparator for two tensors: bitwise identity, remaining precision (DESIGN.md),
// errors, ULP distance, NaN/Inf agreement, cosine similarity and classifier agreement.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "tensor/tensor.h"

namespace ig {

// Remaining precision of two floating values given as raw bits of a format with `mantissa_bits`
// explicit mantissa bits and `exponent_bits` exponent bits: mantissa_bits if identical; 0 if the
// sign or exponent field differs; otherwise the number of leading mantissa bits that agree.
int remaining_precision_bits(uint64_t a, uint64_t b, int mantissa_bits, int exponent_bits);

// Raw bits of element i of a floating tensor (fp16, bf16, fp32, fp64), zero-extended.
uint64_t float_bits(const Tensor& t, int64_t i);

// Distance in units in the last place between two finite-or-infinite values of the same format
// (adjacent representable values are 1 apart; +0 and -0 are 0 apart). NaN: nullopt.
std::optional<uint64_t> ulp_distance_bits(uint64_t a, uint64_t b, int mantissa_bits,
                                          int exponent_bits);

struct Comparison {
  bool comparable = true;  // same dtype and shape
  std::string why_not;     // when not comparable
  bool identical = false;  // dtype, shape and bytes
  int64_t elements = 0;
  int64_t differing = 0;  // elements whose bits differ
  double fraction_differing = 0;
  // Floating types only (-1 otherwise): the minimum over elements.
  int remaining_precision = -1;
  int mantissa_bits = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;  // |a-b| / |b|, over elements where b != 0
  uint64_t max_ulp = 0;
  // Histogram of ULP distances: bucket 0 = 0, 1 = 1, k = [2^(k-1), 2^k) for k >= 2, last = rest.
  std::array<int64_t, 34> ulp_histogram{};
  double cosine_similarity = 1;
  bool nan_positions_agree = true;
  bool inf_positions_agree = true;
  int64_t nan_count_a = 0, nan_count_b = 0, inf_count_a = 0, inf_count_b = 0;
  // Classifier view: rows over the last axis (rank >= 1).
  int64_t rows = 0;
  int64_t top1_flips = 0;
  double top5_overlap = 1;  // mean |top5(a) ∩ top5(b)| / 5 over rows
};

// Compares a (the platform) against b (the reference or another platform).
Comparison compare_tensors(const Tensor& a, const Tensor& b);

// compare_tensors(a, b).remaining_precision alone (-1 unless both are floating tensors of one
// dtype and shape), without the other metrics: EQC analyses call it for every pair of classes.
int tensor_remaining_precision(const Tensor& a, const Tensor& b);

}  // namespace ig

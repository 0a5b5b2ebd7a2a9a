// What a platform did with exceptional values (NaN, Inf, denormals, signed zeros, overflow), judged
// element by element against the oracle rounded once to the platform's output dtype: the fp64
// oracle's 6.8e38 for FLT_MAX + FLT_MAX is Inf in fp32, so an fp32 Inf there is correct rounding,
// not a disagreement. docs/CAMPAIGNS.md "Exceptional values" has the table this code implements.
#pragma once

#include <array>
#include <cstdint>

#include "tensor/tensor.h"

namespace ig {

// Per element, in increasing precedence: a run's behaviour is the last one any element shows.
enum class Exceptional : uint8_t {
  kAsOracle,          // the rounded oracle's value (finite values within tolerance)
  kPropagate,         // the oracle's own NaN or Inf, reproduced
  kOverflowAsOracle,  // Inf where the oracle is finite but overflows the output dtype, same sign
  kZeroSign,          // a zero where the rounded oracle is the zero of the other sign
  kFlush,             // zero where the rounded oracle is a denormal (flushed)
  kDiffers,           // finite where the rounded oracle is finite, out of tolerance
  kNoOverflow,        // finite where the oracle's finite value overflows the output dtype
  kInf,               // Inf where the rounded oracle is finite or the other Inf
  kIgnore,            // no NaN where the oracle has NaN, or finite where the oracle has Inf
  kNan,               // NaN where the oracle has none
  kCount
};
inline constexpr int kNumExceptional = static_cast<int>(Exceptional::kCount);
const char* exceptional_name(Exceptional e);

// How many elements fell into each class, over one or more tensors.
struct ExceptionalCounts {
  std::array<int64_t, kNumExceptional> count{};
  int64_t& operator[](Exceptional e) { return count[static_cast<size_t>(e)]; }
  int64_t operator[](Exceptional e) const { return count[static_cast<size_t>(e)]; }
  // The class of highest precedence that occurred (kAsOracle when nothing else did).
  Exceptional worst() const;
  // NaN or Inf where the rounded oracle has a finite value or none (the failure taxonomy's
  // nan-inf).
  bool nonfinite_unlike_oracle() const {
    return (*this)[Exceptional::kNan] + (*this)[Exceptional::kInf] > 0;
  }
};

// Classifies each element of `platform` against `oracle` rounded once to platform's dtype
// (tensor/convert.h); finite values agree within atol + rtol * |rounded oracle|. Non-floating
// tensors compare exactly; a shape or dtype mismatch counts every element as kDiffers.
void classify_against_oracle(const Tensor& platform, const Tensor& oracle, double rtol, double atol,
                             ExceptionalCounts& counts);

}  // namespace ig

// Relative precision on exact inputs (issue 57). An elementwise function of values that every
// platform reads identically (a single-operator variant's graph inputs) has one correctly rounded
// answer per element. Where that answer is a normal number, a result off by more than rtol of it
// has lost relative precision even when the campaign's absolute tolerance (atol) hides it:
// ONNX Runtime's Sigmoid returns 0 for sigmoid(-18) = 1.5e-8, an error of 1.5e-8 < atol.
#pragma once

#include <cstdint>
#include <string>

#include "tensor/tensor.h"

namespace ig {

// Operators whose result is an elementwise function of its inputs and whose fp64 oracle keeps
// relative precision over the whole input range (backends/ref/numerics/math.h: Softplus through
// log1p, Elu and Celu through expm1). Gelu's erf form and Selu's alpha*exp(x) - alpha cancel in
// fp64 too, so they are left out: judging them relatively would invent a loss. So is HardSigmoid,
// whose alpha * x + beta in the specification's own type cancels near the clamp.
bool relative_precision_op(const std::string& op_type);

struct RelativeLoss {
  int64_t judged = 0;  // elements whose rounded oracle is a normal finite number
  int64_t lost = 0;    // of those, off by more than the threshold relative to the oracle
  int64_t worst = -1;  // flat index of the largest relative error among them
  double worst_relative = 0, platform = 0, oracle = 0;  // at `worst` (oracle rounded)
  int bits_kept = 0;  // significant bits the worst element still has right (0..mantissa+1)
  std::string describe() const;  // "3 of 64 elements ... worst: 0 for 1.52e-08 (0 of 24 bits)"
};

// No loss is called below 2^-8 relative: a platform that computes in bf16 on purpose (OpenVINO's
// default inference precision on a CPU with AVX512-BF16, an emulator's dtype=bf16) keeps 8 bits
// and is judged by the absolute tolerance, as before; what is called lost has fewer bits right.
inline constexpr double kRelativeFloor = 1.0 / 256;

// Elements of `platform` (a float tensor) against `oracle` rounded once to its dtype. An element
// counts as lost where both are finite, the rounded oracle is a normal number and
// |platform - oracle| > threshold * |oracle|, threshold = max(rtol, kRelativeFloor, 8 units in the
// last place of the platform's dtype): a correctly rounded bf16 or fp16 result is never lost.
RelativeLoss relative_loss(const Tensor& platform, const Tensor& oracle, double rtol);

}  // namespace ig

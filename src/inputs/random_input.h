// Seeded random tensors, bit-identical on every platform (no std:: distributions, whose output
// differs between standard libraries).
#pragma once

#include <string>

#include "inputs/rng.h"
#include "tensor/tensor.h"

namespace ig {

// Floats uniform in [0, 1) as in the paper; integers uniform in [0, 10); bool fair coin.
Tensor random_uniform_tensor(DType dtype, const Shape& shape, uint64_t seed);

}  // namespace ig

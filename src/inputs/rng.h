// Seeded random numbers that are the same on every platform: the engine is fully specified by the
// C++ standard and the distributions are our own (std:: distributions differ between libraries).
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "tensor/tensor.h"

namespace ig {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  uint64_t next() { return engine_(); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n) (n > 0); the modulo bias is below 2^-40 for the sizes we use.
  uint64_t below(uint64_t n) { return next() % n; }
  // Standard normal (Box-Muller in double; the second value of each pair is kept).
  double normal();
  double normal(double mean, double stddev) { return mean + stddev * normal(); }

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

// A per-item seed derived from a user seed and a name (an input, an initializer), so that adding
// or reordering items never changes the values of the others.
uint64_t derive_seed(uint64_t seed, const std::string& name);

// Rounds doubles into a tensor of `dtype` (floats round to nearest; integers truncate toward zero;
// bool is value != 0). `values` must hold shape's element count.
Expected<Tensor> tensor_from_doubles(DType dtype, const Shape& shape,
                                     const std::vector<double>& values);

}  // namespace ig

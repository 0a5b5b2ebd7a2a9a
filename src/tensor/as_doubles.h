// A whole tensor as doubles, the values Tensor::as_double gives, in one pass: analyses that read
// every element (the campaign's verdicts) pay for one dtype switch, not one per element.
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace ig {

std::vector<double> as_doubles(const Tensor& t);

}  // namespace ig

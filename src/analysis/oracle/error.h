// The error of one tensor against the oracle's (docs/ORACLE.md, "Error against the oracle"), the
// measure behind origins against the oracle, compare --layers and the self-check:
//
//   error(y, o) = max_i |y_i - o_i| / max_i |o_i|
//
// over the tensor's elements, in double, against the oracle's own values (fp64 for the default
// oracle). Dividing by the tensor's largest magnitude instead of each element's keeps elements
// near zero (cancellation in a sum, Relu's zeros) from dominating. An oracle tensor of zeros
// divides by 1 (the error is then absolute). Non-finite values: a NaN where the oracle has NaN,
// or the same infinity, agrees; any other NaN or infinity on either side makes the error +inf.
#pragma once

#include <string>

#include "tensor/tensor.h"

namespace ig {

struct OracleTensorError {
  bool comparable = false;
  std::string why_not;  // when not comparable (another shape, strings)
  double error = 0;
};

OracleTensorError oracle_tensor_error(const Tensor& platform, const Tensor& oracle);

// The unit roundoff of a floating dtype (2^-24 for fp32, 2^-53 for fp64); 0 for other dtypes.
double unit_roundoff(DType dtype);

}  // namespace ig

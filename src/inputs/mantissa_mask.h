// Zeroing the low mantissa bits of floating tensors: the paper's conjecture (Section 3.4) that a
// model whose weights and inputs carry fewer significant bits behaves like a higher-precision
// cast (fp64 of fp32 weights has 29 zero bits), leaving products and sums more room before they
// round, and so gives fewer equivalence classes.
#pragma once

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "tensor/tensor.h"

namespace ig {

// Zeroes the lowest `bits` explicit mantissa bits of every element of a float16/bfloat16/float/
// double tensor (0 <= bits <= mantissa width; other dtypes are left alone). Truncation, not
// rounding: the value moves towards zero, and NaN/Inf payloads are kept.
Status mask_mantissa(Tensor& t, int bits);

// The same for every floating initializer of the model (raw_data or typed fields).
Status mask_model_mantissa(onnx::ModelProto& model, int bits);

}  // namespace ig

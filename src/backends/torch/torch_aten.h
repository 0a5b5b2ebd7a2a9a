// Between infergap tensors and ATen tensors: one copy each way (into ATen's aligned allocation,
// and back into a contiguous Tensor).
#pragma once

#include <ATen/ATen.h>

#include "core/status.h"
#include "tensor/tensor.h"

namespace ig::torchb {

// A copy of `t` in ATen's allocation; kUnsupported for dtypes ATen lacks (strings).
Expected<at::Tensor> to_aten(const Tensor& t);
// ATen's type for an infergap dtype; kUnsupported for those it lacks.
Expected<at::ScalarType> scalar_type(DType dt);
// A contiguous copy of `t` as an infergap tensor.
Expected<Tensor> from_aten(const at::Tensor& t);
// "float" / "int64" ... for messages.
std::string aten_dtype_name(const at::Tensor& t);

}  // namespace ig::torchb

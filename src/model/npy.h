// NumPy .npy (format 1.0/2.0/3.0) read and write for numeric and bool tensors.
#pragma once

#include <string>

#include "tensor/tensor.h"

namespace ig {

// bfloat16 and the narrow types (float8, int4, ...) have no NumPy type: they are written as
// float32 (exact). Reading a float32 file into such an input goes through npy_to_dtype, which
// refuses values the input's type cannot hold exactly.
Status write_npy(const Tensor& tensor, const std::string& path);
Expected<Tensor> read_npy(const std::string& path);
Expected<Tensor> parse_npy(const std::string& bytes, const std::string& label);
std::string encode_npy(const Tensor& tensor);
// Converts a tensor read from .npy to `target` when no value changes (float32 -> bfloat16/float16).
Expected<Tensor> npy_to_dtype(const Tensor& t, DType target, const std::string& label);

}  // namespace ig

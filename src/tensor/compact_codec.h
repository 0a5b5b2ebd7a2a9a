// Lossless compact encodings of a tensor's bytes for the store (DESIGN.md "Store"): plain zstd;
// byte planes (byte k of every element together, so the slowly varying sign/exponent bytes sit
// side by side) then zstd; and the XOR of the bit patterns with a reference tensor of the same node
// and input (platforms agree on sign, exponent and leading mantissa bits, which become zeros),
// then byte planes and zstd. Decoding is exact for every bit pattern (NaN payloads, -0, denormals).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "tensor/tensor.h"

namespace ig {

enum class TensorCodec : uint8_t { kZstd = 0, kPlanesZstd = 1, kXorPlanesZstd = 2 };
const char* tensor_codec_name(TensorCodec codec);

// kXorPlanesZstd needs `reference` with the same dtype and shape (another platform's tensor of the
// same value); the others ignore it. `level`: zstd's.
Expected<std::string> encode_tensor_bytes(const Tensor& t, TensorCodec codec,
                                          const Tensor* reference = nullptr, int level = 3);
// The inverse: a tensor of `dtype` and `shape` from `blob`, with the reference it was encoded
// against. A blob of the wrong size or a missing or mismatched reference is an error.
Expected<Tensor> decode_tensor_bytes(std::string_view blob, DType dtype, const Shape& shape,
                                     TensorCodec codec, const Tensor* reference = nullptr);

}  // namespace ig

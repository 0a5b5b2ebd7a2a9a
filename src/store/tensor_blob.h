// How the store keeps a tensor's bytes (docs/FORMATS.md "Tensor blobs"). A blob is either a bare
// zstd frame of the raw bytes (stores written before schema version 4 hold only these), or a
// header "IGT" + codec byte followed by the codec's payload (tensor/compact_codec.h); an XOR blob's
// header also names its reference tensor (hash and dtype; the shape is the tensor's own). The
// reference is another platform's tensor of the same value in the same case, stored plainly, and
// converted to the tensor's dtype where they differ (the fp64 oracle for fp32 platforms).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "store/store.h"
#include "tensor/compact_codec.h"

namespace ig {

// `reference` (with its key) may be null: the tensor is then stored plainly.
Expected<std::string> encode_tensor_blob(const Tensor& t, const Tensor* reference,
                                         const TensorKey* reference_key);

struct TensorBlobHeader {
  TensorCodec codec = TensorCodec::kZstd;
  std::optional<TensorKey> reference;
  size_t payload = 0;  // offset of the codec's bytes
};
Expected<TensorBlobHeader> parse_tensor_blob_header(std::string_view blob, const Shape& shape);

// Decodes `blob` as the tensor `key`, asking `load` for its reference when it has one.
Expected<Tensor> decode_tensor_blob(std::string_view blob, const TensorKey& key,
                                    const std::function<Expected<Tensor>(const TensorKey&)>& load);

// The same, with `load_as` giving the reference already in the tensor's dtype (a caller that
// decodes many tensors against one reference rounds it once).
using ReferenceAsLoader = std::function<Expected<Tensor>(const TensorKey& reference, DType dtype)>;
Expected<Tensor> decode_tensor_blob_as(std::string_view blob, const TensorKey& key,
                                       const ReferenceAsLoader& load_as);
// The reference as `dtype`: identical, or a float type rounded (or widened) once.
Expected<Tensor> reference_as(const Tensor& reference, DType dtype);

}  // namespace ig

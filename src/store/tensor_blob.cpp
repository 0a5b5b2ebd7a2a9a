#include "store/tensor_blob.h"

#include <cstring>

#include "tensor/convert.h"

namespace ig {

namespace {

constexpr char kMagic[3] = {'I', 'G', 'T'};
constexpr size_t kReferenceBytes = sizeof(uint64_t) + sizeof(int32_t);

}  // namespace

Expected<Tensor> reference_as(const Tensor& reference, DType dtype) {
  if (reference.dtype() == dtype) return reference;
  if (!is_float(reference.dtype()) || !is_float(dtype))
    return invalid_argument("a {} tensor cannot be the reference of a {} tensor",
                            dtype_name(reference.dtype()), dtype_name(dtype));
  return convert_float_tensor(reference, dtype);
}

Expected<std::string> encode_tensor_blob(const Tensor& t, const Tensor* reference,
                                         const TensorKey* reference_key) {
  std::string blob(kMagic, sizeof(kMagic));
  if (reference == nullptr || reference_key == nullptr) {
    blob += static_cast<char>(TensorCodec::kPlanesZstd);
    IG_ASSIGN_OR_RETURN(std::string payload, encode_tensor_bytes(t, TensorCodec::kPlanesZstd));
    return blob + payload;
  }
  IG_ASSIGN_OR_RETURN(Tensor ref, reference_as(*reference, t.dtype()));
  blob += static_cast<char>(TensorCodec::kXorPlanesZstd);
  const uint64_t hash = reference_key->hash;
  const int32_t dtype = static_cast<int32_t>(reference_key->dtype);
  blob.append(reinterpret_cast<const char*>(&hash), sizeof(hash));
  blob.append(reinterpret_cast<const char*>(&dtype), sizeof(dtype));
  IG_ASSIGN_OR_RETURN(std::string payload,
                      encode_tensor_bytes(t, TensorCodec::kXorPlanesZstd, &ref));
  return blob + payload;
}

Expected<TensorBlobHeader> parse_tensor_blob_header(std::string_view blob, const Shape& shape) {
  TensorBlobHeader h;
  if (blob.size() < sizeof(kMagic) + 1 || std::memcmp(blob.data(), kMagic, sizeof(kMagic)) != 0)
    return h;  // a bare zstd frame
  const auto codec = static_cast<uint8_t>(blob[sizeof(kMagic)]);
  if (codec > static_cast<uint8_t>(TensorCodec::kXorPlanesZstd))
    return parse_error("tensor blob with unknown codec {}", codec);
  h.codec = static_cast<TensorCodec>(codec);
  h.payload = sizeof(kMagic) + 1;
  if (h.codec != TensorCodec::kXorPlanesZstd) return h;
  if (blob.size() < h.payload + kReferenceBytes)
    return parse_error("tensor blob too short for its reference");
  uint64_t hash = 0;
  int32_t dtype = 0;
  std::memcpy(&hash, blob.data() + h.payload, sizeof(hash));
  std::memcpy(&dtype, blob.data() + h.payload + sizeof(hash), sizeof(dtype));
  if (!is_valid_dtype(dtype)) return parse_error("tensor blob's reference has dtype {}", dtype);
  h.reference = TensorKey{hash, static_cast<DType>(dtype), shape};
  h.payload += kReferenceBytes;
  return h;
}

Expected<Tensor> decode_tensor_blob_as(std::string_view blob, const TensorKey& key,
                                       const ReferenceAsLoader& load_as) {
  IG_ASSIGN_OR_RETURN(TensorBlobHeader h, parse_tensor_blob_header(blob, key.shape));
  const std::string_view payload = blob.substr(h.payload);
  if (!h.reference) return decode_tensor_bytes(payload, key.dtype, key.shape, h.codec);
  IG_ASSIGN_OR_RETURN(Tensor ref, load_as(*h.reference, key.dtype));
  return decode_tensor_bytes(payload, key.dtype, key.shape, h.codec, &ref);
}

Expected<Tensor> decode_tensor_blob(std::string_view blob, const TensorKey& key,
                                    const std::function<Expected<Tensor>(const TensorKey&)>& load) {
  return decode_tensor_blob_as(blob, key,
                               [&](const TensorKey& ref, DType dtype) -> Expected<Tensor> {
                                 IG_ASSIGN_OR_RETURN(Tensor stored, load(ref));
                                 return reference_as(stored, dtype);
                               });
}

}  // namespace ig

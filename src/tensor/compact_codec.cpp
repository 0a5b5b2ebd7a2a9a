#include "tensor/compact_codec.h"

#include <zstd.h>

#include <memory>

namespace ig {

namespace {

// Byte k of element i moves to plane k: out[k * n + i] = in[i * size + k].
void to_planes(const std::byte* in, std::byte* out, size_t n, size_t size) {
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < size; ++k) out[k * n + i] = in[i * size + k];
}

void from_planes(const std::byte* in, std::byte* out, size_t n, size_t size) {
  for (size_t k = 0; k < size; ++k)
    for (size_t i = 0; i < n; ++i) out[i * size + k] = in[k * n + i];
}

void xor_into(std::byte* bytes, const std::byte* reference, size_t nbytes) {
  for (size_t i = 0; i < nbytes; ++i) bytes[i] ^= reference[i];
}

Status check_reference(const Tensor* reference, DType dtype, const Shape& shape) {
  if (reference == nullptr) return invalid_argument("xor-planes-zstd needs a reference tensor");
  if (reference->dtype() != dtype || reference->shape() != shape) {
    return invalid_argument("xor-planes-zstd: the reference is {} {}, the tensor {} {}",
                            dtype_name(reference->dtype()), shape_to_string(reference->shape()),
                            dtype_name(dtype), shape_to_string(shape));
  }
  return Status::Ok();
}

Expected<std::string> zstd_compress(const std::byte* data, size_t nbytes, int level) {
  // One context per thread, reused: a fresh one per call costs more than a small tensor.
  thread_local std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(),
                                                                       ZSTD_freeCCtx);
  if (!cctx) return internal_error("zstd: cannot make a compression context");
  std::string packed(ZSTD_compressBound(nbytes), '\0');
  const size_t n = ZSTD_compressCCtx(cctx.get(), packed.data(), packed.size(), data, nbytes, level);
  if (ZSTD_isError(n)) return internal_error("zstd: {}", ZSTD_getErrorName(n));
  packed.resize(n);
  return packed;
}

}  // namespace

const char* tensor_codec_name(TensorCodec codec) {
  switch (codec) {
    case TensorCodec::kZstd:
      return "zstd";
    case TensorCodec::kPlanesZstd:
      return "planes-zstd";
    case TensorCodec::kXorPlanesZstd:
      return "xor-planes-zstd";
  }
  return "unknown";
}

Expected<std::string> encode_tensor_bytes(const Tensor& t, TensorCodec codec,
                                          const Tensor* reference, int level) {
  if (t.dtype() == DType::kString) return invalid_argument("string tensors have no byte encoding");
  const size_t nbytes = t.nbytes();
  if (codec == TensorCodec::kZstd) return zstd_compress(t.raw(), nbytes, level);
  if (codec == TensorCodec::kXorPlanesZstd)
    IG_RETURN_IF_ERROR(check_reference(reference, t.dtype(), t.shape()));
  const size_t size = dtype_size(t.dtype());
  std::unique_ptr<std::byte[]> work(new std::byte[nbytes]);
  std::unique_ptr<std::byte[]> planes(new std::byte[nbytes]);
  std::copy(t.raw(), t.raw() + nbytes, work.get());
  if (codec == TensorCodec::kXorPlanesZstd) xor_into(work.get(), reference->raw(), nbytes);
  to_planes(work.get(), planes.get(), static_cast<size_t>(t.numel()), size);
  return zstd_compress(planes.get(), nbytes, level);
}

Expected<Tensor> decode_tensor_bytes(std::string_view blob, DType dtype, const Shape& shape,
                                     TensorCodec codec, const Tensor* reference) {
  if (codec == TensorCodec::kXorPlanesZstd)
    IG_RETURN_IF_ERROR(check_reference(reference, dtype, shape));
  // Every byte is decompressed into it below, or it is dropped with an error.
  IG_ASSIGN_OR_RETURN(Tensor t, Tensor::create_for_overwrite(dtype, shape));
  const size_t nbytes = t.nbytes();
  std::unique_ptr<std::byte[]> planes;
  std::byte* target = t.raw();
  if (codec != TensorCodec::kZstd) {
    planes.reset(new std::byte[nbytes]);
    target = planes.get();
  }
  const size_t n = ZSTD_decompress(target, nbytes, blob.data(), blob.size());
  if (ZSTD_isError(n) || n != nbytes) {
    return io_error("{} {} {}: the encoded bytes are corrupt ({})", tensor_codec_name(codec),
                    dtype_name(dtype), shape_to_string(shape),
                    ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size");
  }
  if (codec == TensorCodec::kZstd) return t;
  from_planes(planes.get(), t.raw(), static_cast<size_t>(t.numel()), dtype_size(dtype));
  if (codec == TensorCodec::kXorPlanesZstd) xor_into(t.raw(), reference->raw(), nbytes);
  return t;
}

}  // namespace ig

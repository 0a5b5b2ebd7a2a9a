#include "inputs/mantissa_mask.h"

#include <cstring>

#include "model/tensor_proto.h"

namespace ig {

namespace {

template <typename U>
void mask_words(std::byte* data, int64_t n, int bits, int mantissa_bits) {
  const U all_mantissa = (U{1} << mantissa_bits) - 1;
  const U low = bits == 0 ? U{0} : static_cast<U>((U{1} << bits) - 1);
  const U exponent_mask =
      static_cast<U>(~all_mantissa) & static_cast<U>(~(U{1} << (sizeof(U) * 8 - 1)));
  for (int64_t i = 0; i < n; ++i) {
    U w;
    std::memcpy(&w, data + i * static_cast<int64_t>(sizeof(U)), sizeof(U));
    if ((w & exponent_mask) == exponent_mask) continue;  // Inf and NaN keep their bits
    w = static_cast<U>(w & static_cast<U>(~low));
    std::memcpy(data + i * static_cast<int64_t>(sizeof(U)), &w, sizeof(U));
  }
}

}  // namespace

Status mask_mantissa(Tensor& t, int bits) {
  if (!is_float(t.dtype())) return Status::Ok();
  const int m = dtype_info(t.dtype()).mantissa_bits;
  if (bits < 0 || bits > m)
    return invalid_argument("cannot zero {} mantissa bits of {} (it has {})", bits,
                            dtype_name(t.dtype()), m);
  switch (dtype_size(t.dtype())) {
    case 2:
      mask_words<uint16_t>(t.raw(), t.numel(), bits, m);
      break;
    case 4:
      mask_words<uint32_t>(t.raw(), t.numel(), bits, m);
      break;
    case 8:
      mask_words<uint64_t>(t.raw(), t.numel(), bits, m);
      break;
    default:
      break;
  }
  return Status::Ok();
}

Status mask_model_mantissa(onnx::ModelProto& model, int bits) {
  for (auto& init : *model.mutable_graph()->mutable_initializer()) {
    IG_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(init));
    if (!is_float(t.dtype())) continue;
    if (Status st = mask_mantissa(t, bits); !st.ok()) return st.with_context(init.name());
    const std::string name = init.name();
    tensor_to_proto(t, name, &init);
  }
  return Status::Ok();
}

}  // namespace ig

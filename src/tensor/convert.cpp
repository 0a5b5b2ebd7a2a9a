#include "tensor/convert.h"

namespace ig {

Tensor convert_float_tensor(const Tensor& t, DType target) {
  if (!t.defined() || !is_float(t.dtype()) || t.dtype() == target) return t;
  const int64_t n = t.numel();
  // The store rounds every fp64 oracle tensor to fp32 (its reference): typed, the same rounding.
  if (t.dtype() == DType::kFloat64 && target == DType::kFloat32) {
    Tensor out = Tensor::create_for_overwrite(target, t.shape()).value();
    const double* from = t.data<double>();
    float* to = out.data<float>();
    for (int64_t i = 0; i < n; ++i) to[i] = static_cast<float>(from[i]);
    return out;
  }
  Tensor out(target, t.shape());
  for (int64_t i = 0; i < n; ++i) {
    const double v = t.as_double(i);
    switch (target) {
      case DType::kFloat64:
        out.data<double>()[i] = v;
        break;
      case DType::kFloat32:
        out.data<float>()[i] = static_cast<float>(v);
        break;
      case DType::kFloat16:
        out.data<Float16>()[i] = Float16::from_bits(double_to_half_bits(v));
        break;
      case DType::kBFloat16:
        out.data<BFloat16>()[i] = BFloat16::from_bits(double_to_bfloat16_bits(v));
        break;
      default:
        break;
    }
  }
  return out;
}

}  // namespace ig

#include "backends/torch/torch_aten.h"

#include <cstring>

namespace ig::torchb {

namespace {}  // namespace

Expected<at::ScalarType> scalar_type(DType dt) {
  switch (dt) {
    case DType::kFloat32:
      return at::kFloat;
    case DType::kFloat64:
      return at::kDouble;
    case DType::kFloat16:
      return at::kHalf;
    case DType::kBFloat16:
      return at::kBFloat16;
    case DType::kInt64:
      return at::kLong;
    case DType::kInt32:
      return at::kInt;
    case DType::kInt16:
      return at::kShort;
    case DType::kInt8:
      return at::kChar;
    case DType::kUInt8:
      return at::kByte;
    case DType::kBool:
      return at::kBool;
    default:
      return unsupported("ATen has no tensor type for {}", dtype_name(dt));
  }
}

namespace {

Expected<DType> ig_dtype(at::ScalarType st) {
  switch (st) {
    case at::kFloat:
      return DType::kFloat32;
    case at::kDouble:
      return DType::kFloat64;
    case at::kHalf:
      return DType::kFloat16;
    case at::kBFloat16:
      return DType::kBFloat16;
    case at::kLong:
      return DType::kInt64;
    case at::kInt:
      return DType::kInt32;
    case at::kShort:
      return DType::kInt16;
    case at::kChar:
      return DType::kInt8;
    case at::kByte:
      return DType::kUInt8;
    case at::kBool:
      return DType::kBool;
    default:
      return unsupported("ATen produced a {} tensor, which infergap does not store",
                         c10::toString(st));
  }
}

}  // namespace

Expected<at::Tensor> to_aten(const Tensor& t) {
  IG_ASSIGN_OR_RETURN(at::ScalarType st, scalar_type(t.dtype()));
  const std::vector<int64_t> sizes(t.shape().begin(), t.shape().end());
  // A copy into ATen's own allocation rather than a view: ATen aligns to 64 bytes, and BLAS and
  // vector kernels split their loops by alignment, so a view of infergap's buffer could sum in
  // another order than PyTorch eager does on the same values.
  at::Tensor a = at::empty(sizes, at::TensorOptions().dtype(st));
  if (t.nbytes() > 0) std::memcpy(a.data_ptr(), t.raw(), t.nbytes());
  return a;
}

Expected<Tensor> from_aten(const at::Tensor& t) {
  IG_ASSIGN_OR_RETURN(DType dt, ig_dtype(t.scalar_type()));
  const at::Tensor c = t.contiguous();
  Tensor out(dt, Shape(c.sizes().begin(), c.sizes().end()));
  if (out.nbytes() > 0) std::memcpy(out.raw(), c.data_ptr(), out.nbytes());
  return out;
}

std::string aten_dtype_name(const at::Tensor& t) { return c10::toString(t.scalar_type()); }

}  // namespace ig::torchb

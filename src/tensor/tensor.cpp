#include "tensor/tensor.h"

#include <atomic>
#include <cstring>
#include <new>
#include <utility>

#include "core/narrow_types.h"
#include "tensor/block_cache.h"

namespace ig {

namespace {
std::atomic<uint64_t> g_tensor_byte_limit{uint64_t{8} << 30};

struct BlockDelete {
  size_t bytes;
  void operator()(std::byte* p) const { release_tensor_block(p, bytes); }
};
}  // namespace

void set_tensor_byte_limit(uint64_t bytes) { g_tensor_byte_limit = bytes; }
uint64_t tensor_byte_limit() { return g_tensor_byte_limit; }

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Expected<int64_t> checked_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return invalid_argument("negative dimension {} in shape {}", d, shape_to_string(shape));
    if (d != 0 && n > INT64_MAX / d) {
      return resource_exhausted("shape {} has more elements than fit in int64",
                                shape_to_string(shape));
    }
    n *= d;
  }
  return n;
}

std::vector<int64_t> contiguous_strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

Expected<Tensor> Tensor::create(DType dtype, Shape shape) {
  return allocate(dtype, std::move(shape), /*zero=*/true);
}

Expected<Tensor> Tensor::create_for_overwrite(DType dtype, Shape shape) {
  return allocate(dtype, std::move(shape), /*zero=*/false);
}

Expected<Tensor> Tensor::allocate(DType dtype, Shape shape, bool zero) {
  if (dtype == DType::kUndefined || !is_valid_dtype(static_cast<int32_t>(dtype))) {
    return invalid_argument("undefined element type");
  }
  IG_ASSIGN_OR_RETURN(int64_t n, checked_numel(shape));
  const size_t elem = dtype == DType::kString ? sizeof(std::string) : dtype_size(dtype);
  if (n > 0 && static_cast<uint64_t>(n) > tensor_byte_limit() / elem) {
    return resource_exhausted("tensor {}{} needs {} bytes, over the limit of {} bytes",
                              dtype_name(dtype), shape_to_string(shape),
                              static_cast<double>(n) * static_cast<double>(elem),
                              tensor_byte_limit());
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = n;
  if (dtype == DType::kString) {
    t.strings_ = std::make_shared<std::vector<std::string>>(static_cast<size_t>(n));
  } else {
    const size_t bytes = static_cast<size_t>(n) * elem;
    std::byte* p = acquire_tensor_block(bytes);
    if (zero) std::memset(p, 0, bytes);
    t.bytes_ = std::shared_ptr<std::byte[]>(p, BlockDelete{bytes});
  }
  return t;
}

Tensor Tensor::borrowing(DType dtype, Shape shape, std::shared_ptr<const void> owner,
                         const std::byte* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.numel_ = shape_numel(shape);
  t.shape_ = std::move(shape);
  // The aliasing constructor: the count is the owner's, the pointer the data's.
  t.bytes_ = std::shared_ptr<std::byte[]>(std::const_pointer_cast<void>(std::move(owner)),
                                          const_cast<std::byte*>(data));
  return t;
}

Expected<Tensor> Tensor::shape_only(DType dtype, Shape shape) {
  if (dtype == DType::kUndefined || dtype == DType::kString ||
      !is_valid_dtype(static_cast<int32_t>(dtype))) {
    return invalid_argument("a shape-only tensor needs a numeric element type");
  }
  IG_ASSIGN_OR_RETURN(int64_t n, checked_numel(shape));
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = n;
  return t;
}

Tensor::Tensor(DType dtype, Shape shape) {
  auto t = create(dtype, std::move(shape));
  if (!t.ok()) throw StatusError(t.status());
  *this = std::move(t).value();
}

Tensor Tensor::from_strings(std::vector<std::string> v, Shape shape) {
  Tensor t(DType::kString, std::move(shape));
  for (size_t i = 0; i < v.size() && i < t.strings().size(); ++i) t.strings()[i] = std::move(v[i]);
  return t;
}

std::vector<std::string>& Tensor::strings() {
  check_type(DType::kString);
  return *strings_;
}
const std::vector<std::string>& Tensor::strings() const {
  check_type(DType::kString);
  return *strings_;
}

void Tensor::check_type(DType requested) const {
  if (requested != dtype_) {
    throw StatusError(internal_error("tensor of type {} accessed as {}", dtype_name(dtype_),
                                     dtype_name(requested)));
  }
}

const uint8_t* Tensor::codes() const {
  if (!is_narrow(dtype_))
    throw StatusError(internal_error("tensor of type {} accessed as codes", dtype_name(dtype_)));
  return reinterpret_cast<const uint8_t*>(raw());
}

uint8_t* Tensor::codes() {
  (void)std::as_const(*this).codes();  // the type check
  return reinterpret_cast<uint8_t*>(raw());
}

Tensor Tensor::reshaped(Shape shape) const {
  if (shape_numel(shape) != numel_) {
    throw StatusError(
        invalid_argument("cannot reshape {} to {}", describe(), shape_to_string(shape)));
  }
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::clone() const {
  if (!defined()) return {};
  Tensor t(dtype_, shape_);
  if (dtype_ == DType::kString) {
    *t.strings_ = *strings_;
  } else if (nbytes()) {
    std::memcpy(t.raw(), raw(), nbytes());
  }
  return t;
}

double Tensor::as_double(int64_t i) const {
  switch (dtype_) {
    case DType::kFloat32:
      return data<float>()[i];
    case DType::kFloat64:
      return data<double>()[i];
    case DType::kFloat16:
      return static_cast<float>(data<Float16>()[i]);
    case DType::kBFloat16:
      return static_cast<float>(data<BFloat16>()[i]);
    case DType::kInt8:
      return data<int8_t>()[i];
    case DType::kInt16:
      return data<int16_t>()[i];
    case DType::kInt32:
      return data<int32_t>()[i];
    case DType::kInt64:
      return static_cast<double>(data<int64_t>()[i]);
    case DType::kUInt8:
      return data<uint8_t>()[i];
    case DType::kUInt16:
      return data<uint16_t>()[i];
    case DType::kUInt32:
      return data<uint32_t>()[i];
    case DType::kUInt64:
      return static_cast<double>(data<uint64_t>()[i]);
    case DType::kBool:
      return data<bool>()[i] ? 1.0 : 0.0;
    default:
      if (is_narrow(dtype_)) return narrow_value(dtype_, codes()[i]);
      throw StatusError(invalid_argument("{} is not numeric", dtype_name(dtype_)));
  }
}

int64_t Tensor::as_int64(int64_t i) const {
  switch (dtype_) {
    case DType::kInt64:
      return data<int64_t>()[i];
    case DType::kInt32:
      return data<int32_t>()[i];
    case DType::kInt16:
      return data<int16_t>()[i];
    case DType::kInt8:
      return data<int8_t>()[i];
    case DType::kUInt8:
      return data<uint8_t>()[i];
    case DType::kUInt16:
      return data<uint16_t>()[i];
    case DType::kUInt32:
      return data<uint32_t>()[i];
    case DType::kUInt64:
      return static_cast<int64_t>(data<uint64_t>()[i]);
    case DType::kBool:
      return data<bool>()[i] ? 1 : 0;
    default:
      if (is_narrow_int(dtype_)) return narrow_int_value(dtype_, codes()[i]);
      return static_cast<int64_t>(as_double(i));
  }
}

std::vector<int64_t> Tensor::to_int64_vector() const {
  std::vector<int64_t> v(static_cast<size_t>(numel_));
  for (int64_t i = 0; i < numel_; ++i) v[static_cast<size_t>(i)] = as_int64(i);
  return v;
}

bool Tensor::bitwise_equal(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (dtype_ == DType::kString) return *strings_ == *other.strings_;
  return nbytes() == 0 || std::memcmp(raw(), other.raw(), nbytes()) == 0;
}

std::string Tensor::describe() const {
  return std::string(dtype_name(dtype_)) + shape_to_string(shape_);
}

}  // namespace ig

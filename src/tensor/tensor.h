// Tensor: dtype + shape + contiguous row-major storage shared between copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"

namespace ig {

using Shape = std::vector<int64_t>;

std::string shape_to_string(const Shape& shape);
// Number of elements, or an error for negative dims or overflow of int64.
Expected<int64_t> checked_numel(const Shape& shape);
inline int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}
// Row-major strides in elements.
std::vector<int64_t> contiguous_strides(const Shape& shape);

// Largest single tensor the process will allocate; protects against absurd declared sizes.
void set_tensor_byte_limit(uint64_t bytes);
uint64_t tensor_byte_limit();

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled. Throws StatusError (kResourceExhausted / kInvalidArgument) for impossible sizes;
  // use Tensor::create where the caller wants a Status instead.
  Tensor(DType dtype, Shape shape);
  static Expected<Tensor> create(DType dtype, Shape shape);
  // Its bytes left as the allocator gives them: for a caller that writes every byte before
  // anything reads one (a reply read into it). Zeroing 58 MB of a traced run cost 16 ms.
  static Expected<Tensor> create_for_overwrite(DType dtype, Shape shape);
  // Dtype and shape without storage (raw() is nullptr): a model's weight in a process whose
  // backend runs the model file itself and never reads it (LoadOptions::initializer_data).
  static Expected<Tensor> shape_only(DType dtype, Shape shape);
  // Bytes another object owns and keeps alive while any copy of the tensor lives (a runner's
  // reply in shared memory, read-only): no allocation, no copy.
  static Tensor borrowing(DType dtype, Shape shape, std::shared_ptr<const void> owner,
                          const std::byte* data);

  template <typename T>
  static Tensor scalar(T v) {
    Tensor t(dtype_of<T>, {});
    *t.data<T>() = v;
    return t;
  }
  template <typename T>
  static Tensor from_vector(const std::vector<T>& v, Shape shape) {
    Tensor t(dtype_of<T>, std::move(shape));
    for (size_t i = 0; i < v.size() && i < static_cast<size_t>(t.numel()); ++i)
      t.data<T>()[i] = v[i];
    return t;
  }
  static Tensor from_strings(std::vector<std::string> v, Shape shape);

  bool defined() const { return dtype_ != DType::kUndefined; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_[static_cast<size_t>(i < 0 ? i + rank() : i)]; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * dtype_size(dtype_); }
  std::vector<int64_t> strides() const { return contiguous_strides(shape_); }

  std::byte* raw() { return bytes_ ? bytes_.get() : nullptr; }
  const std::byte* raw() const { return bytes_ ? bytes_.get() : nullptr; }
  std::span<const std::byte> bytes() const { return {raw(), nbytes()}; }

  template <typename T>
  T* data() {
    check_type(dtype_of<T>);
    return reinterpret_cast<T*>(raw());
  }
  template <typename T>
  const T* data() const {
    check_type(dtype_of<T>);
    return reinterpret_cast<const T*>(raw());
  }
  template <typename T>
  std::span<const T> values() const {
    return {data<T>(), static_cast<size_t>(numel_)};
  }
  std::vector<std::string>& strings();
  const std::vector<std::string>& strings() const;
  // The codes of a narrow type (core/narrow_types.h: float8, int4, ...), one a byte.
  uint8_t* codes();
  const uint8_t* codes() const;

  // Same storage, new shape (numel must match).
  Tensor reshaped(Shape shape) const;
  Tensor clone() const;
  // Element i converted to double / int64 (any numeric dtype); for shape-like inputs.
  double as_double(int64_t i) const;
  int64_t as_int64(int64_t i) const;
  std::vector<int64_t> to_int64_vector() const;

  // Bitwise identity: dtype, shape and raw bytes (NaN payloads and signed zeros count).
  bool bitwise_equal(const Tensor& other) const;
  std::string describe() const;  // "float[1,3,224,224]"

 private:
  static Expected<Tensor> allocate(DType dtype, Shape shape, bool zero);
  void check_type(DType requested) const;
  DType dtype_ = DType::kUndefined;
  Shape shape_;
  int64_t numel_ = 0;
  std::shared_ptr<std::byte[]> bytes_;
  std::shared_ptr<std::vector<std::string>> strings_;
};

}  // namespace ig

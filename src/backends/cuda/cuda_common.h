// Shared pieces of the cuda backend: library errors as Status, device memory, descriptors, the
// per-process context (device, stream, cuDNN and cuBLAS handles) and device tensors.
#pragma once

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_cublas.h"
#include "backends/cuda/cuda_options.h"
#include "tensor/tensor.h"

namespace ig::cuda {

// Error texts name the call and the library's own code ("cudnnConvolutionForward:
// CUDNN_STATUS_NOT_SUPPORTED ...").
Status check(cudaError_t e, const char* call);
Status check(cudnnStatus_t e, const char* call);
Status check(cublasStatus_t e, const char* call);
#define IG_CUDA_CALL(fn, ...) IG_RETURN_IF_ERROR(::ig::cuda::check(fn(__VA_ARGS__), #fn))

// Ok when `device` exists; else kUnsupported "no CUDA device: cudaGetDeviceCount returned ...".
// Never crashes on a machine without a driver or GPU.
Status device_status(int device);
// "NVIDIA H100 80GB HBM3 (sm_90), driver 13.0, runtime 13.0, cuDNN 91900, cuBLAS 130000".
std::string device_description(int device);

// Device memory, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  static Expected<DeviceBuffer> allocate(size_t bytes);
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// A float32 tensor in device memory, row-major like Tensor. Shared: graph values alias it.
struct DeviceTensor {
  Shape shape;
  std::shared_ptr<DeviceBuffer> buf;
  float* data() const { return static_cast<float*>(buf->get()); }
  int64_t numel() const { return shape_numel(shape); }
};

// A cuDNN descriptor owned with its destroy function.
template <typename T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
class Desc {
 public:
  Desc() = default;
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  ~Desc() {
    if (d_) (void)Destroy(d_);
  }
  Status create() { return check(Create(&d_), "cudnnCreate*Descriptor"); }
  T get() const { return d_; }

 private:
  T d_ = nullptr;
};
using TensorDesc =
    Desc<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDesc =
    Desc<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvDesc = Desc<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                      cudnnDestroyConvolutionDescriptor>;
using PoolDesc =
    Desc<cudnnPoolingDescriptor_t, cudnnCreatePoolingDescriptor, cudnnDestroyPoolingDescriptor>;
using ActDesc = Desc<cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor,
                     cudnnDestroyActivationDescriptor>;
using OpDesc =
    Desc<cudnnOpTensorDescriptor_t, cudnnCreateOpTensorDescriptor, cudnnDestroyOpTensorDescriptor>;

// Fully packed float descriptor of `shape`, left-padded with 1s to at least `min_rank` dims
// (cuDNN wants 4 or more; at most CUDNN_DIM_MAX).
Status set_tensor(TensorDesc& d, const Shape& shape, size_t min_rank = 4);
// Shape right-padded with 1s to `rank` (spatial dims cuDNN needs but the model lacks).
Shape pad_right(Shape shape, size_t rank);

// One per backend (per worker process): the device, a stream, and library handles bound to it.
class Context {
 public:
  static Expected<std::unique_ptr<Context>> create(const Options& options);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  const Options& opt() const { return opt_; }
  cudnnHandle_t dnn() const { return dnn_; }
  cublasHandle_t blas() const { return blas_; }
  const Cublas& cublas_api() const { return *cublas_; }
  cudaStream_t stream() const { return stream_; }

  Expected<DeviceTensor> empty(const Shape& shape);
  Expected<DeviceTensor> upload(const Tensor& t);  // float32 only
  Expected<Tensor> download(const DeviceTensor& t);
  // Scratch memory for cuDNN, grown on demand and kept.
  Expected<void*> workspace(size_t bytes);
  Status sync();

 private:
  explicit Context(Options o) : opt_(std::move(o)) {}
  Options opt_;
  cudnnHandle_t dnn_ = nullptr;
  const Cublas* cublas_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer workspace_;
};

}  // namespace ig::cuda

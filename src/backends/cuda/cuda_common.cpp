#include "backends/cuda/cuda_common.h"

#include <fmt/format.h>

namespace ig::cuda {

Status check(cudaError_t e, const char* call) {
  if (e == cudaSuccess) return Status::Ok();
  if (e == cudaErrorMemoryAllocation) {
    return resource_exhausted("{}: {} ({})", call, cudaGetErrorName(e), cudaGetErrorString(e));
  }
  return internal_error("{}: {} ({})", call, cudaGetErrorName(e), cudaGetErrorString(e));
}

Status check(cudnnStatus_t e, const char* call) {
  if (e == CUDNN_STATUS_SUCCESS) return Status::Ok();
  // NOT_SUPPORTED: a valid configuration this cuDNN build cannot run (e.g. an algorithm for a
  // layer shape); the caller falls back or reports the node unsupported.
  if (e == CUDNN_STATUS_NOT_SUPPORTED) return unsupported("{}: {}", call, cudnnGetErrorString(e));
  return internal_error("{}: {}", call, cudnnGetErrorString(e));
}

Status check(cublasStatus_t e, const char* call) {
  if (e == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  auto api = cublas();  // loaded: a cuBLAS status comes from a cuBLAS call
  const std::string text =
      api.ok() ? fmt::format("{} ({})", (*api)->status_name(e), (*api)->status_string(e))
               : fmt::format("cublasStatus_t {}", static_cast<int>(e));
  if (e == CUBLAS_STATUS_NOT_SUPPORTED) return unsupported("{}: {}", call, text);
  return internal_error("{}: {}", call, text);
}

Status device_status(int device) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    return unsupported("no CUDA device: cudaGetDeviceCount returned {} ({})", cudaGetErrorName(e),
                       cudaGetErrorString(e));
  }
  if (count == 0) return unsupported("no CUDA device: cudaGetDeviceCount returned 0 devices");
  if (device >= count) {
    return unsupported("no CUDA device {}: cudaGetDeviceCount returned {} device(s)", device,
                       count);
  }
  return Status::Ok();
}

std::string device_description(int device) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return "unknown device";
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  return fmt::format("{} (sm_{}{}), driver {}.{}, runtime {}.{}, cuDNN {}", p.name, p.major,
                     p.minor, driver / 1000, driver % 1000 / 10, runtime / 1000,
                     runtime % 1000 / 10, cudnnGetVersion());
}

Expected<DeviceBuffer> DeviceBuffer::allocate(size_t bytes) {
  DeviceBuffer b;
  // cudaMalloc(0) may return null: keep one byte so every buffer has an address.
  IG_CUDA_CALL(cudaMalloc, &b.ptr_, bytes == 0 ? 1 : bytes);
  b.bytes_ = bytes;
  return b;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) (void)cudaFree(ptr_);
}

Shape pad_right(Shape shape, size_t rank) {
  while (shape.size() < rank) shape.push_back(1);
  return shape;
}

Status set_tensor(TensorDesc& d, const Shape& shape, size_t min_rank) {
  Shape s = shape;
  while (s.size() < min_rank) s.insert(s.begin(), 1);
  if (s.size() > CUDNN_DIM_MAX) {
    return unsupported("tensor of rank {} exceeds cuDNN's {} dimensions", s.size(), CUDNN_DIM_MAX);
  }
  std::vector<int> dims(s.size()), strides(s.size());
  int64_t stride = 1;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] > INT32_MAX || stride > INT32_MAX) {
      return unsupported("tensor {} is too large for cuDNN's int dimensions", shape_to_string(s));
    }
    dims[i] = static_cast<int>(s[i]);
    strides[i] = static_cast<int>(stride);
    stride *= std::max<int64_t>(s[i], 1);
  }
  if (!d.get()) IG_RETURN_IF_ERROR(d.create());
  IG_CUDA_CALL(cudnnSetTensorNdDescriptor, d.get(), CUDNN_DATA_FLOAT, static_cast<int>(dims.size()),
               dims.data(), strides.data());
  return Status::Ok();
}

Expected<std::unique_ptr<Context>> Context::create(const Options& options) {
  IG_RETURN_IF_ERROR(device_status(options.device));
  std::unique_ptr<Context> c(new Context(options));
  IG_CUDA_CALL(cudaSetDevice, options.device);
  IG_CUDA_CALL(cudaStreamCreateWithFlags, &c->stream_, cudaStreamNonBlocking);
  IG_CUDA_CALL(cudnnCreate, &c->dnn_);
  IG_CUDA_CALL(cudnnSetStream, c->dnn_, c->stream_);
  IG_ASSIGN_OR_RETURN(c->cublas_, cublas());
  const Cublas& b = *c->cublas_;
  IG_RETURN_IF_ERROR(check(b.create(&c->blas_), "cublasCreate"));
  IG_RETURN_IF_ERROR(check(b.set_stream(c->blas_, c->stream_), "cublasSetStream"));
  // tf32=off: pedantic fp32 (no tensor cores, no reduced-precision steps); on: TF32 allowed.
  IG_RETURN_IF_ERROR(check(
      b.set_math_mode(c->blas_, options.tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH),
      "cublasSetMathMode"));
  // Atomics make some cuBLAS routines nondeterministic; not allowed is the default, made explicit.
  IG_RETURN_IF_ERROR(
      check(b.set_atomics_mode(c->blas_, CUBLAS_ATOMICS_NOT_ALLOWED), "cublasSetAtomicsMode"));
  return c;
}

Context::~Context() {
  if (stream_) (void)cudaStreamSynchronize(stream_);
  workspace_ = DeviceBuffer();
  if (blas_) (void)cublas_->destroy(blas_);
  if (dnn_) (void)cudnnDestroy(dnn_);
  if (stream_) (void)cudaStreamDestroy(stream_);
}

Expected<DeviceTensor> Context::empty(const Shape& shape) {
  IG_ASSIGN_OR_RETURN(int64_t n, checked_numel(shape));
  IG_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::allocate(static_cast<size_t>(n) * 4));
  return DeviceTensor{shape, std::make_shared<DeviceBuffer>(std::move(b))};
}

Expected<DeviceTensor> Context::upload(const Tensor& t) {
  if (t.dtype() != DType::kFloat32) {
    return unsupported("the cuda backend computes in float32; got {}", dtype_name(t.dtype()));
  }
  IG_ASSIGN_OR_RETURN(DeviceTensor d, empty(t.shape()));
  IG_CUDA_CALL(cudaMemcpyAsync, d.data(), t.data<float>(), t.numel() * sizeof(float),
               cudaMemcpyHostToDevice, stream_);
  // The host tensor may be freed after return: wait for the copy.
  IG_RETURN_IF_ERROR(sync());
  return d;
}

Expected<Tensor> Context::download(const DeviceTensor& d) {
  IG_ASSIGN_OR_RETURN(Tensor t, Tensor::create(DType::kFloat32, d.shape));
  IG_CUDA_CALL(cudaMemcpyAsync, t.data<float>(), d.data(), d.numel() * sizeof(float),
               cudaMemcpyDeviceToHost, stream_);
  IG_RETURN_IF_ERROR(sync());
  return t;
}

Expected<void*> Context::workspace(size_t bytes) {
  if (bytes == 0) return nullptr;
  if (workspace_.bytes() < bytes) {
    IG_RETURN_IF_ERROR(sync());  // the old scratch may still be in use by queued work
    workspace_ = DeviceBuffer();
    IG_ASSIGN_OR_RETURN(workspace_, DeviceBuffer::allocate(bytes));
  }
  return workspace_.get();
}

Status Context::sync() {
  IG_CUDA_CALL(cudaStreamSynchronize, stream_);
  return Status::Ok();
}

}  // namespace ig::cuda

// The `cuda` platform: one cuDNN or cuBLAS call per ONNX node on one GPU. Outputs stay on the
// device; a host copy (which changes no bits) is made only when something needs one: the trace, a
// node run on the reference kernels (data movement, fallback=ref), a graph output.
#pragma once

#include <memory>

#include "backends/cuda/cuda_common.h"
#include "backends/library/library_backend.h"

namespace ig {

class CudaBackend : public LibraryBackend {
 public:
  explicit CudaBackend(std::unique_ptr<cuda::Context> ctx)
      : LibraryBackend("cuda", {"cuDNN", "cuDNN/cuBLAS"}), ctx_(std::move(ctx)) {}
  bool fallback_ref() const override { return ctx_->opt().fallback_ref; }

 protected:
  Status check_native(const Node& node, const Model& model) const override;
  std::unique_ptr<LibraryRun> begin_run(const Model& model,
                                        const std::map<std::string, Value>& feeds) override;

 private:
  std::unique_ptr<cuda::Context> ctx_;
};

}  // namespace ig

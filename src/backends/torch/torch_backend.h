// The `torch` platform: each ONNX node as the ATen call PyTorch's own module makes (torch_ops.h),
// so an exported model runs PyTorch eager's kernels node by node. Lives in the dlopen'ed module
// libinfergap_torch.so: only a worker that runs a torch platform loads libtorch.
#pragma once

#include "backends/library/library_backend.h"
#include "backends/library/qdq_checks.h"
#include "backends/torch/torch_options.h"

namespace ig {

class TorchBackend : public LibraryBackend {
 public:
  explicit TorchBackend(TorchOptions options);
  bool fallback_ref() const override { return options_.fallback_ref; }
  LibraryVersion library() const override;
  // A qengine is set: int8 QDQ groups run as PyTorch's quantized operators (torch_int8.h).
  bool quantized() const { return !options_.qengine.empty(); }

 protected:
  Status check_native(const Node& node, const Model& model) const override;
  std::unique_ptr<LibraryRun> begin_run(const Model& model,
                                        const std::map<std::string, Value>& feeds) override;

 private:
  TorchOptions options_;
  mutable QdqMembership groups_;  // the support check's int8 groups (check_native)
};

}  // namespace ig

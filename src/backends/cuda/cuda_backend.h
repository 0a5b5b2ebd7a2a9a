// The `cuda` platform: one cuDNN or cuBLAS call per ONNX node on one GPU, every node's output
// copied back to the host for the trace (the copy changes no bits). Values stay on the device
// between nodes; nodes without a mapping run on the reference backend with fallback=ref.
#pragma once

#include <memory>

#include "backends/backend.h"
#include "backends/cuda/cuda_common.h"
#include "backends/ref/ref_backend.h"

namespace ig {

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(std::unique_ptr<cuda::Context> ctx) : ctx_(std::move(ctx)) {}
  std::string name() const override { return ctx_->opt().fallback_ref ? "cuda+ref" : "cuda"; }
  Status supports(const Node& node, const Model& model) const override;
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) override;
  // Ok when cuDNN / cuBLAS run the node (or it is data movement); otherwise the reason.
  Status native_support(const Node& node, const Model& model) const;
  cuda::Context& context() { return *ctx_; }
  RefBackend& ref() { return ref_; }

 private:
  std::unique_ptr<cuda::Context> ctx_;
  RefBackend ref_;
};

}  // namespace ig

// The `onednn` platform: one oneDNN primitive per ONNX node (or per fused group with post-ops),
// activations reordered into the layouts oneDNN picks and back to plain tensors for the trace.
#pragma once

#include "backends/library/library_backend.h"
#include "backends/onednn/onednn_common.h"
#include "model/model_identity.h"

namespace ig {

class OnednnBackend : public LibraryBackend {
 public:
  explicit OnednnBackend(onednn::Options options) : LibraryBackend("onednn", {"oneDNN", "oneDNN"}) {
    ctx_.opt = std::move(options);
  }
  bool fallback_ref() const override { return ctx_.opt.fallback_ref; }
  LibraryVersion library() const override;

 protected:
  Status check_native(const Node& node, const Model& model) const override;
  std::unique_ptr<LibraryRun> begin_run(const Model& model,
                                        const std::map<std::string, Value>& feeds) override;

 private:
  onednn::Ctx ctx_;
  ModelVersion version_;  // of the model the primitive cache was built for
};

}  // namespace ig

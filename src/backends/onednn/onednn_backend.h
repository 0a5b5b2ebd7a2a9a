// The `onednn` platform: one oneDNN primitive per ONNX node (or per fused group with post-ops),
// activations reordered into the layouts oneDNN picks and back to plain tensors for the trace.
#pragma once

#include "backends/backend.h"
#include "backends/onednn/onednn_common.h"
#include "backends/ref/ref_backend.h"
#include "model/model_identity.h"

namespace ig {

class OnednnBackend : public Backend {
 public:
  explicit OnednnBackend(onednn::Options options) { ctx_.opt = std::move(options); }
  std::string name() const override { return ctx_.opt.fallback_ref ? "onednn+ref" : "onednn"; }
  Status supports(const Node& node, const Model& model) const override;
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) override;
  // Ok when oneDNN itself runs the node; otherwise the reason (the reference fallback aside).
  Status native_support(const Node& node, const Model& model) const;

 private:
  onednn::Ctx ctx_;
  ModelVersion version_;  // of the model the primitive cache was built for
  RefBackend ref_;
};

}  // namespace ig

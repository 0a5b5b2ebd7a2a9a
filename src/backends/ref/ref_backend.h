// The reference interpreter: runs each node with a registered kernel, in topological order.
#pragma once

#include "backends/backend.h"
#include "backends/ref/kernel.h"
#include "core/version.h"

namespace ig {

class RefBackend : public Backend {
 public:
  // `library`: a library its numerics call (the blas platform's GEMM), else infergap's own kernels.
  explicit RefBackend(Numerics numerics = {},
                      LibraryVersion library = {"infergap-ref", kInfergapVersion})
      : numerics_(std::move(numerics)), library_(std::move(library)) {}
  std::string name() const override { return "ref"; }
  LibraryVersion library() const override { return library_; }
  Status supports(const Node& node, const Model& model) const override;
  Status check_loads(const Model& model) override;
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) override;

 private:
  Numerics numerics_;
  LibraryVersion library_;
};

}  // namespace ig

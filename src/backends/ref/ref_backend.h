// The reference interpreter: runs each node with a registered kernel, in topological order.
#pragma once

#include "backends/backend.h"
#include "backends/ref/kernel.h"

namespace ig {

class RefBackend : public Backend {
 public:
  explicit RefBackend(Numerics numerics = {}) : numerics_(std::move(numerics)) {}
  std::string name() const override { return "ref"; }
  Status supports(const Node& node, const Model& model) const override;
  Status check_loads(const Model& model) override;
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) override;

 private:
  Numerics numerics_;
};

}  // namespace ig

#include "results/run_result.h"

#include "model/graph.h"
#include "tensor/hash.h"

namespace ig {

TracedTensor traced_value(const std::string& value, const Node* producer, Tensor tensor,
                          bool keep) {
  TracedTensor t;
  t.value = value;
  if (producer != nullptr) {
    t.node = producer->name;
    t.op_type = producer->op_type;
    t.node_index = static_cast<int64_t>(producer->index);
  }
  t.hash = tensor_hash(tensor);
  t.dtype = tensor.dtype();
  t.shape = tensor.shape();
  if (keep) t.tensor = std::move(tensor);
  return t;
}

}  // namespace ig

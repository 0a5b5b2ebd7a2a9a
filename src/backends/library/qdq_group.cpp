#include "backends/library/qdq_group.h"

#include <algorithm>

namespace ig {

std::optional<QdqGroup> find_library_qdq_group(const QdqGraphIndex& index, size_t head) {
  auto grp = find_qdq_group(index, head);
  if (!grp || !grp->act || index.graph().nodes[*grp->act].op_type == "Relu") return grp;
  for (auto dropped : {grp->act, grp->q}) {
    if (dropped) grp->nodes.erase(std::find(grp->nodes.begin(), grp->nodes.end(), *dropped));
  }
  grp->act.reset();
  grp->q.reset();
  return grp;
}

std::optional<QdqGroup> find_library_qdq_group(const Model& model, size_t head) {
  if (!may_head_qdq_group(model.graph, head)) return std::nullopt;
  return find_library_qdq_group(QdqGraphIndex::scanning(model.graph), head);
}

const Tensor* qdq_operand(const Node& n, size_t i, const TensorLookup& known) {
  return i < n.inputs.size() && !n.inputs[i].empty() ? known(n.inputs[i]) : nullptr;
}

bool qdq_int8_type(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

bool qdq_all_zero(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (t.as_double(i) != 0) return false;
  }
  return true;
}

bool qdq_uniform(const Tensor& t) {
  for (int64_t i = 1; i < t.numel(); ++i) {
    if (t.as_double(i) != t.as_double(0)) return false;
  }
  return true;
}

}  // namespace ig

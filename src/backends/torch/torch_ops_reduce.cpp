// Reductions as at::sum / at::mean / at::amax / at::amin / at::prod over the ONNX axes (an
// attribute before opset 18, 13 for ReduceSum; an input since).
#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

bool axes_are_input(const OpInputs& x) {
  return x.node.op_type == "ReduceSum" ? x.opset >= 13 : x.opset >= 18;
}

Expected<OpResult> reduce(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  std::vector<int64_t> axes = axes_are_input(x)
                                  ? (x.has(1) ? int_list(x.at(1)) : std::vector<int64_t>{})
                                  : x.node.attr_ints("axes");
  const bool keep = x.node.attr_int("keepdims", 1) != 0;
  if (axes.empty()) {
    if (x.node.attr_int("noop_with_empty_axes", 0) != 0) return one(X.clone(), "aten::clone");
    for (int64_t d = 0; d < X.dim(); ++d) axes.push_back(d);
  }
  IG_ASSIGN_OR_RETURN(axes, normalize_axes(x.node, axes, X.dim()));
  const std::string& op = x.node.op_type;
  if (op == "ReduceSum") return one(at::sum(X, axes, keep), "aten::sum");
  if (op == "ReduceMean") return one(at::mean(X, axes, keep), "aten::mean");
  if (op == "ReduceMax") return one(at::amax(X, axes, keep), "aten::amax");
  if (op == "ReduceMin") return one(at::amin(X, axes, keep), "aten::amin");
  if (op == "ReduceSumSquare") return one(at::sum(X * X, axes, keep), "aten::mul,sum");
  // ReduceProd: at::prod takes one dim at a time.
  at::Tensor y = X;
  std::vector<int64_t> sorted = axes;
  std::sort(sorted.rbegin(), sorted.rend());
  for (int64_t a : sorted) y = at::prod(y, a, keep);
  return one(y, "aten::prod");
}

}  // namespace

const std::vector<OpDef>& reduce_ops() {
  static const std::vector<OpDef> table = {
      {"", "ReduceSum", 1, kMaxOpset, reduce, nullptr},
      {"", "ReduceMean", 1, kMaxOpset, reduce, nullptr},
      {"", "ReduceMax", 1, kMaxOpset, reduce, nullptr},
      {"", "ReduceMin", 1, kMaxOpset, reduce, nullptr},
      {"", "ReduceProd", 1, kMaxOpset, reduce, nullptr},
      {"", "ReduceSumSquare", 1, kMaxOpset, reduce, nullptr},
  };
  return table;
}

}  // namespace ig::torchb

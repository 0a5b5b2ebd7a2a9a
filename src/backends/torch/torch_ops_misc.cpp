// Operators that build or index tensors inside the graph (ViT's class token, Swin's window masks,
// MaxViT's relative position bias): ConstantOfShape, Range, Mod, ScatterND and Einsum, as
// torch.full, torch.arange, torch.fmod / torch.remainder, index_put and torch.einsum.
#include "backends/torch/torch_aten.h"
#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

Expected<OpResult> constant_of_shape(const OpInputs& x) {
  const std::vector<int64_t> shape = int_list(x.at(0));
  for (int64_t d : shape) {
    if (d < 0) return invalid_argument("{}: negative dimension {}", x.node.label(), d);
  }
  const Attribute* value = x.node.attr("value");
  if (!value || !value->t.defined()) {
    return one(at::zeros(shape, at::TensorOptions().dtype(at::kFloat)), "aten::zeros");
  }
  IG_ASSIGN_OR_RETURN(at::Tensor v, to_aten(value->t));
  return one(v.reshape({}).expand(shape).contiguous(), "aten::full");
}

Expected<OpResult> range(const OpInputs& x) {
  const at::Scalar start = x.at(0).item(), limit = x.at(1).item(), delta = x.at(2).item();
  if (delta.toDouble() == 0) return invalid_argument("{}: delta is 0", x.node.label());
  // ONNX's count is max(ceil((limit - start) / delta), 0), which arange shares.
  return one(at::arange(start, limit, delta, at::TensorOptions().dtype(x.at(0).scalar_type())),
             "aten::arange");
}

Expected<OpResult> mod(const OpInputs& x) {
  // fmod=1: the sign of the dividend (C's fmod); fmod=0: of the divisor (Python's %).
  if (x.node.attr_int("fmod", 0) != 0) return one(at::fmod(x.at(0), x.at(1)), "aten::fmod");
  return one(at::remainder(x.at(0), x.at(1)), "aten::remainder");
}

Status check_scatter_nd(const Node& node, const Model& model) {
  if (node.attr_string("reduction", "none") != "none") {
    return unsupported("{}: ScatterND with reduction={} is not mapped onto ATen", node.label(),
                       node.attr_string("reduction", "none"));
  }
  return Status::Ok();
}

Expected<OpResult> scatter_nd(const OpInputs& x) {
  const at::Tensor& data = x.at(0);
  const at::Tensor indices = x.at(1).to(at::kLong);
  const at::Tensor& updates = x.at(2);
  const int64_t k = indices.size(-1);
  if (k > data.dim()) {
    return invalid_argument("{}: index tuples of {} for rank {}", x.node.label(), k, data.dim());
  }
  // Each index tuple addresses a slice of data: flatten the tuples and index_put them.
  const at::Tensor flat = indices.reshape({-1, k});
  std::vector<int64_t> slice(data.sizes().begin() + k, data.sizes().end());
  std::vector<int64_t> upd_shape = {flat.size(0)};
  upd_shape.insert(upd_shape.end(), slice.begin(), slice.end());
  c10::List<c10::optional<at::Tensor>> index;
  for (int64_t i = 0; i < k; ++i) {
    at::Tensor col = flat.select(1, i);
    col = at::where(col < 0, col + data.size(i), col);
    index.push_back(col);
  }
  return one(data.index_put(index, updates.reshape(upd_shape)), "aten::index_put");
}

Expected<OpResult> einsum(const OpInputs& x) {
  std::vector<at::Tensor> operands(x.in.begin(), x.in.end());
  return one(at::einsum(x.node.attr_string("equation", ""), operands), "aten::einsum");
}

}  // namespace

const std::vector<OpDef>& misc_ops() {
  static const std::vector<OpDef> table = {
      {"", "ConstantOfShape", 9, kMaxOpset, constant_of_shape, nullptr},
      {"", "Range", 11, kMaxOpset, range, nullptr},
      {"", "Mod", 10, kMaxOpset, mod, nullptr},
      {"", "ScatterND", 11, kMaxOpset, scatter_nd, check_scatter_nd},
      {"", "Einsum", 12, kMaxOpset, einsum, nullptr},
  };
  return table;
}

}  // namespace ig::torchb

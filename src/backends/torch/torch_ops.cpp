#include "backends/torch/torch_ops.h"

#include <fmt/ranges.h>

namespace ig::torchb {

const std::vector<OpDef>& ops() {
  static const std::vector<OpDef> all = [] {
    std::vector<OpDef> v;
    for (const auto* t :
         {&conv_ops(), &gemm_ops(), &pool_ops(), &norm_ops(), &unary_ops(), &binary_ops(),
          &reduce_ops(), &shape_ops(), &resize_ops(), &misc_ops(), &rnn_ops()}) {
      v.insert(v.end(), t->begin(), t->end());
    }
    return v;
  }();
  return all;
}

Status only_first_output(const Node& node, const Model& model) {
  for (size_t i = 1; i < node.outputs.size(); ++i) {
    if (!node.outputs[i].empty()) {
      return unsupported("{}: output {} ('{}') is not computed by the ATen mapping", node.label(),
                         i, node.outputs[i]);
    }
  }
  return Status::Ok();
}

Expected<OpResult> expect_spatial(const OpInputs& x, OpResult r, const std::vector<int64_t>& out) {
  const auto sizes = r.outs[0].sizes();
  const std::vector<int64_t> got(sizes.begin() + 2, sizes.end());
  if (got != out) {
    return unsupported("{}: {} gives spatial size {} where ONNX's window gives {}", x.node.label(),
                       r.kernel, fmt::join(got, "x"), fmt::join(out, "x"));
  }
  return r;
}

std::vector<int64_t> int_list(const at::Tensor& t) {
  const at::Tensor l = t.to(at::kLong).contiguous();
  const int64_t* p = l.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + l.numel());
}

Expected<std::vector<int64_t>> normalize_axes(const Node& node, std::vector<int64_t> axes,
                                              int64_t rank) {
  for (auto& a : axes) {
    if (a < -rank || a >= rank) {
      return invalid_argument("{}: axis {} is out of range for rank {}", node.label(), a, rank);
    }
    if (a < 0) a += rank;
  }
  return axes;
}

}  // namespace ig::torchb

// Pooling as at::max_poolNd / at::avg_poolNd (nn.MaxPool2d, nn.AvgPool2d) and global pooling as
// adaptive pooling to 1 (nn.AdaptiveAvgPool2d((1, 1)) exports as GlobalAveragePool).
#include <fmt/ranges.h>

#include "backends/library/window.h"
#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

Status check_pool(const Node& node, const Model& model) {
  IG_RETURN_IF_ERROR(only_first_output(node, model));
  const size_t nd = node.attr_ints("kernel_shape").size();
  if (nd < 1 || nd > 3) {
    return unsupported("{}: ATen pools 1 to 3 spatial dims, kernel_shape has {}", node.label(), nd);
  }
  if (node.op_type == "MaxPool" && node.attr_int("storage_order", 0) != 0) {
    return unsupported("{}: MaxPool with storage_order=1 is not mapped onto ATen", node.label());
  }
  return Status::Ok();
}

// The window with ATen's symmetric padding, or the reason ATen cannot express it.
Expected<Window> aten_window(const OpInputs& x, bool ceil_mode) {
  const auto kernel = x.node.attr_ints("kernel_shape");
  if (x.at(0).dim() != static_cast<int64_t>(kernel.size()) + 2) {
    return invalid_argument("{}: input of rank {} for a {}-D kernel", x.node.label(), x.at(0).dim(),
                            kernel.size());
  }
  IG_ASSIGN_OR_RETURN(Window w, window_of(x.node, shape_of(x.at(0)), kernel, ceil_mode));
  if (!w.symmetric()) {
    return unsupported(
        "{}: uneven padding ({} before, {} after) is not expressible in ATen "
        "pooling",
        x.node.label(), fmt::join(w.pad_begin, ","), fmt::join(w.declared_pad_end, ","));
  }
  for (size_t d = 0; d < w.kernel.size(); ++d) {
    if (w.pad_begin[d] * 2 > w.kernel[d]) {
      return unsupported("{}: padding {} exceeds half the kernel {}, which ATen refuses",
                         x.node.label(), w.pad_begin[d], w.kernel[d]);
    }
  }
  return w;
}

Expected<OpResult> max_pool(const OpInputs& x) {
  const bool ceil_mode = x.node.attr_int("ceil_mode", 0) != 0;
  IG_ASSIGN_OR_RETURN(Window w, aten_window(x, ceil_mode));
  const at::Tensor& X = x.at(0);
  switch (w.kernel.size()) {
    case 1:
      return expect_spatial(
          x,
          one(at::max_pool1d(X, w.kernel, w.strides, w.pad_begin, w.dilations, ceil_mode),
              "aten::max_pool1d"),
          w.out);
    case 2:
      return expect_spatial(
          x,
          one(at::max_pool2d(X, w.kernel, w.strides, w.pad_begin, w.dilations, ceil_mode),
              "aten::max_pool2d"),
          w.out);
    default:
      return expect_spatial(
          x,
          one(at::max_pool3d(X, w.kernel, w.strides, w.pad_begin, w.dilations, ceil_mode),
              "aten::max_pool3d"),
          w.out);
  }
}

Expected<OpResult> avg_pool(const OpInputs& x) {
  const bool ceil_mode = x.node.attr_int("ceil_mode", 0) != 0;
  IG_ASSIGN_OR_RETURN(Window w, aten_window(x, ceil_mode));
  for (int64_t d : w.dilations) {
    if (d != 1) return unsupported("{}: ATen's avg_pool has no dilations", x.node.label());
  }
  const bool include_pad = x.node.attr_int("count_include_pad", 0) != 0;
  const at::Tensor& X = x.at(0);
  switch (w.kernel.size()) {
    case 1:
      return expect_spatial(
          x,
          one(at::avg_pool1d(X, w.kernel, w.strides, w.pad_begin, ceil_mode, include_pad),
              "aten::avg_pool1d"),
          w.out);
    case 2:
      return expect_spatial(
          x,
          one(at::avg_pool2d(X, w.kernel, w.strides, w.pad_begin, ceil_mode, include_pad),
              "aten::avg_pool2d"),
          w.out);
    default:
      return expect_spatial(
          x,
          one(at::avg_pool3d(X, w.kernel, w.strides, w.pad_begin, ceil_mode, include_pad),
              "aten::avg_pool3d"),
          w.out);
  }
}

Expected<OpResult> global_pool(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  if (X.dim() < 3) {
    return invalid_argument("{}: needs [N, C, spatial...], got rank {}", x.node.label(), X.dim());
  }
  const bool avg = x.node.op_type == "GlobalAveragePool";
  if (X.dim() == 4) {
    if (avg) return one(at::adaptive_avg_pool2d(X, {1, 1}), "aten::adaptive_avg_pool2d");
    return one(std::get<0>(at::adaptive_max_pool2d(X, {1, 1})), "aten::adaptive_max_pool2d");
  }
  std::vector<int64_t> dims;
  for (int64_t d = 2; d < X.dim(); ++d) dims.push_back(d);
  if (avg) return one(at::mean(X, dims, true), "aten::mean");
  return one(at::amax(X, dims, true), "aten::amax");
}

}  // namespace

const std::vector<OpDef>& pool_ops() {
  static const std::vector<OpDef> table = {
      {"", "MaxPool", 1, kMaxOpset, max_pool, check_pool},
      {"", "AveragePool", 1, kMaxOpset, avg_pool, check_pool},
      {"", "GlobalAveragePool", 1, kMaxOpset, global_pool, nullptr},
      {"", "GlobalMaxPool", 1, kMaxOpset, global_pool, nullptr},
  };
  return table;
}

}  // namespace ig::torchb

// Conv and ConvTranspose as at::conv1d/2d/3d and at::conv_transpose1d/2d/3d: the calls F.convNd
// make, so ATen picks the same kernel (oneDNN, its own, or slow_conv) as PyTorch eager.
#include "backends/library/window.h"
#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

// ATen pads symmetrically; uneven ONNX padding (SAME_UPPER with an even kernel, explicit pads) is
// applied first with constant_pad_nd, as PyTorch users do for TF-style padding.
at::Tensor pad_uneven(const at::Tensor& x, const Window& w, std::vector<int64_t>& padding,
                      double value) {
  padding.assign(w.pad_begin.begin(), w.pad_begin.end());
  if (w.symmetric()) return x;
  std::vector<int64_t> pad;  // last dimension first, as constant_pad_nd wants
  for (size_t d = w.pad_begin.size(); d-- > 0;) {
    pad.push_back(w.pad_begin[d]);
    pad.push_back(w.declared_pad_end[d]);
  }
  std::fill(padding.begin(), padding.end(), 0);
  return at::constant_pad_nd(x, pad, value);
}

Status check_conv(const Node& node, const Model& model) {
  const size_t nd = node.attr_ints("kernel_shape").size();
  if (nd > 3) return unsupported("{}: ATen convolutions have at most 3 spatial dims", node.label());
  return Status::Ok();
}

Expected<OpResult> conv(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  const at::Tensor& W = x.at(1);
  const int64_t nd = X.dim() - 2;
  if (nd < 1 || nd > 3 || W.dim() != X.dim()) {
    return invalid_argument("{}: Conv needs X and W of rank 3 to 5 and equal, got {} and {}",
                            x.node.label(), X.dim(), W.dim());
  }
  std::vector<int64_t> kernel(W.sizes().begin() + 2, W.sizes().end());
  IG_ASSIGN_OR_RETURN(Window w, window_of(x.node, shape_of(X), kernel, false));
  std::vector<int64_t> padding;
  const at::Tensor in = pad_uneven(X, w, padding, 0.0);
  const int64_t groups = x.node.attr_int("group", 1);
  if (groups < 1 || X.size(1) != W.size(1) * groups || W.size(0) % groups != 0) {
    return invalid_argument("{}: X has {} channels, W is {} with group={}", x.node.label(),
                            X.size(1), shape_to_string(shape_of(W)), groups);
  }
  const c10::optional<at::Tensor> bias =
      x.has(2) ? c10::optional<at::Tensor>(x.at(2)) : c10::nullopt;
  switch (nd) {
    case 1:
      return expect_spatial(
          x, one(at::conv1d(in, W, bias, w.strides, padding, w.dilations, groups), "aten::conv1d"),
          w.out);
    case 2:
      return expect_spatial(
          x, one(at::conv2d(in, W, bias, w.strides, padding, w.dilations, groups), "aten::conv2d"),
          w.out);
    default:
      return expect_spatial(
          x, one(at::conv3d(in, W, bias, w.strides, padding, w.dilations, groups), "aten::conv3d"),
          w.out);
  }
}

Status check_conv_transpose(const Node& node, const Model& model) {
  IG_RETURN_IF_ERROR(check_conv(node, model));
  if (node.has_attr("output_shape")) {
    return unsupported(
        "{}: ConvTranspose with output_shape is not mapped onto ATen (pads from "
        "output_shape)",
        node.label());
  }
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") {
    return unsupported("{}: ConvTranspose with auto_pad={} is not mapped onto ATen", node.label(),
                       auto_pad);
  }
  const auto pads = node.attr_ints("pads");
  const size_t half = pads.size() / 2;
  for (size_t i = 0; i < half; ++i) {
    if (pads[i] != pads[i + half]) {
      return unsupported("{}: ConvTranspose with uneven pads is not mapped onto ATen",
                         node.label());
    }
  }
  return Status::Ok();
}

Expected<OpResult> conv_transpose(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  const at::Tensor& W = x.at(1);
  const int64_t nd = X.dim() - 2;
  if (nd < 1 || nd > 3 || W.dim() != X.dim()) {
    return invalid_argument("{}: ConvTranspose needs X and W of rank 3 to 5 and equal",
                            x.node.label());
  }
  const size_t n = static_cast<size_t>(nd);
  const auto strides = x.node.attr_ints("strides", std::vector<int64_t>(n, 1));
  const auto dilations = x.node.attr_ints("dilations", std::vector<int64_t>(n, 1));
  auto pads = x.node.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (x.node.attr_string("auto_pad", "NOTSET") == "VALID") pads.assign(2 * n, 0);
  const auto output_padding = x.node.attr_ints("output_padding", std::vector<int64_t>(n, 0));
  if (strides.size() != n || dilations.size() != n || pads.size() != 2 * n ||
      output_padding.size() != n) {
    return invalid_argument(
        "{}: strides/dilations/pads/output_padding do not match {} spatial "
        "dims",
        x.node.label(), n);
  }
  const std::vector<int64_t> padding(pads.begin(), pads.begin() + nd);
  const int64_t groups = x.node.attr_int("group", 1);
  const c10::optional<at::Tensor> bias =
      x.has(2) ? c10::optional<at::Tensor>(x.at(2)) : c10::nullopt;
  switch (nd) {
    case 1:
      return one(
          at::conv_transpose1d(X, W, bias, strides, padding, output_padding, groups, dilations),
          "aten::conv_transpose1d");
    case 2:
      return one(
          at::conv_transpose2d(X, W, bias, strides, padding, output_padding, groups, dilations),
          "aten::conv_transpose2d");
    default:
      return one(
          at::conv_transpose3d(X, W, bias, strides, padding, output_padding, groups, dilations),
          "aten::conv_transpose3d");
  }
}

}  // namespace

const std::vector<OpDef>& conv_ops() {
  static const std::vector<OpDef> table = {
      {"", "Conv", 1, kMaxOpset, conv, check_conv},
      {"", "ConvTranspose", 1, kMaxOpset, conv_transpose, check_conv_transpose},
  };
  return table;
}

}  // namespace ig::torchb

// Normalisations as the ATen calls of PyTorch's modules in eval mode: nn.BatchNorm2d ->
// at::batch_norm, nn.LayerNorm -> at::layer_norm, nn.InstanceNorm2d -> at::instance_norm,
// nn.GroupNorm -> at::group_norm.
#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

Status check_batch_norm(const Node& node, const Model& model) {
  IG_RETURN_IF_ERROR(only_first_output(node, model));
  if (node.attr_int("training_mode", 0) != 0) {
    return unsupported("{}: BatchNormalization in training mode is not mapped onto ATen",
                       node.label());
  }
  return Status::Ok();
}

Expected<OpResult> batch_norm(const OpInputs& x) {
  if (x.at(0).dim() < 2) {
    return invalid_argument("{}: BatchNormalization needs rank >= 2", x.node.label());
  }
  const double eps = x.node.attr_float("epsilon", 1e-5f);
  const double momentum = x.node.attr_float("momentum", 0.9f);
  // cudnn_enabled=true as nn.BatchNorm passes it (torch.backends.cudnn.enabled); CPU ignores it.
  return one(
      at::batch_norm(x.at(0), x.at(1), x.at(2), x.at(3), x.at(4), false, 1.0 - momentum, eps, true),
      "aten::batch_norm");
}

Expected<OpResult> layer_norm(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  const int64_t axis = x.node.attr_int("axis", -1);
  IG_ASSIGN_OR_RETURN(auto axes, normalize_axes(x.node, {axis}, X.dim()));
  const std::vector<int64_t> normalized(X.sizes().begin() + axes[0], X.sizes().end());
  const double eps = x.node.attr_float("epsilon", 1e-5f);
  // ONNX lets Scale and B be broadcastable to the normalised shape; ATen wants it exactly.
  const at::Tensor scale = x.at(1).expand(normalized).contiguous();
  const c10::optional<at::Tensor> bias =
      x.has(2) ? c10::optional<at::Tensor>(x.at(2).expand(normalized).contiguous()) : c10::nullopt;
  return one(at::layer_norm(X, normalized, scale, bias, eps, true), "aten::layer_norm");
}

Expected<OpResult> instance_norm(const OpInputs& x) {
  const double eps = x.node.attr_float("epsilon", 1e-5f);
  return one(at::instance_norm(x.at(0), x.at(1), x.at(2), {}, {}, true, 0.1, eps, true),
             "aten::instance_norm");
}

Expected<OpResult> group_norm(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  const int64_t groups = x.node.attr_int("num_groups", 1);
  if (X.dim() < 2 || groups < 1 || X.size(1) % groups != 0) {
    return invalid_argument("{}: {} channels do not split into {} groups", x.node.label(),
                            X.dim() < 2 ? 0 : X.size(1), groups);
  }
  // Opset 18's Scale and B are per group; opset 21 made them per channel as ATen has them.
  at::Tensor scale = x.at(1), bias = x.at(2);
  if (x.opset < 21) {
    const int64_t per = X.size(1) / groups;
    scale = scale.repeat_interleave(per);
    bias = bias.repeat_interleave(per);
  }
  const double eps = x.node.attr_float("epsilon", 1e-5f);
  return one(at::group_norm(X, groups, scale, bias, eps, true), "aten::group_norm");
}

}  // namespace

const std::vector<OpDef>& norm_ops() {
  static const std::vector<OpDef> table = {
      {"", "BatchNormalization", 1, kMaxOpset, batch_norm, check_batch_norm},
      {"", "LayerNormalization", 17, kMaxOpset, layer_norm, only_first_output},
      {"", "InstanceNormalization", 1, kMaxOpset, instance_norm, nullptr},
      {"", "GroupNormalization", 18, kMaxOpset, group_norm, nullptr},
  };
  return table;
}

}  // namespace ig::torchb

// Cast, and Resize as F.interpolate's kernels where ONNX's coordinate mode is one of theirs:
// linear + half_pixel / pytorch_half_pixel / align_corners -> upsample_bilinear2d,
// nearest + asymmetric + floor -> upsample_nearest2d ("nearest"),
// nearest + half_pixel + round_prefer_ceil -> _upsample_nearest_exact2d ("nearest-exact").
#include "backends/torch/torch_aten.h"
#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

Expected<OpResult> cast(const OpInputs& x) {
  const int64_t to = x.node.attr_int("to", 0);
  IG_ASSIGN_OR_RETURN(at::ScalarType st, scalar_type(static_cast<DType>(to)));
  return one(x.at(0).to(st).contiguous(), "aten::to");
}

enum class Kernel { kBilinear, kNearest, kNearestExact };

Expected<Kernel> resize_kernel(const Node& node) {
  const std::string mode = node.attr_string("mode", "nearest");
  const std::string coord = node.attr_string("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = node.attr_string("nearest_mode", "round_prefer_floor");
  if (node.attr_int("antialias", 0) != 0 || node.has_attr("axes") ||
      node.attr_string("keep_aspect_ratio_policy", "stretch") != "stretch") {
    return unsupported(
        "{}: Resize with antialias, axes or keep_aspect_ratio_policy is not mapped "
        "onto ATen",
        node.label());
  }
  if (mode == "linear" &&
      (coord == "half_pixel" || coord == "pytorch_half_pixel" || coord == "align_corners")) {
    return Kernel::kBilinear;
  }
  if (mode == "nearest" && coord == "asymmetric" && nearest == "floor") return Kernel::kNearest;
  if (mode == "nearest" && coord == "half_pixel" && nearest == "round_prefer_ceil") {
    return Kernel::kNearestExact;
  }
  return unsupported(
      "{}: Resize mode={} coordinate_transformation_mode={} nearest_mode={} has no "
      "F.interpolate kernel in ATen",
      node.label(), mode, coord, nearest);
}

Status check_resize(const Node& node, const Model& model) {
  if (model.opset_for("") < 11) {
    return unsupported("{}: Resize before opset 11 is not mapped onto ATen", node.label());
  }
  auto k = resize_kernel(node);
  return k.ok() ? Status::Ok() : k.status();
}

Expected<OpResult> resize(const OpInputs& x) {
  IG_ASSIGN_OR_RETURN(Kernel kernel, resize_kernel(x.node));
  const at::Tensor& X = x.at(0);
  if (X.dim() != 4) {
    return unsupported("{}: Resize of rank {} is not mapped onto ATen (4-D only)", x.node.label(),
                       X.dim());
  }
  std::vector<int64_t> size(2);
  c10::optional<double> scale_h, scale_w;
  if (x.has(3) && x.at(3).numel() > 0) {
    const auto sizes = int_list(x.at(3));
    if (sizes.size() != 4) return invalid_argument("{}: sizes needs 4 entries", x.node.label());
    if (sizes[0] != X.size(0) || sizes[1] != X.size(1)) {
      return unsupported("{}: Resize of N or C is not mapped onto ATen", x.node.label());
    }
    size = {sizes[2], sizes[3]};
  } else if (x.has(2) && x.at(2).numel() > 0) {
    const at::Tensor s = x.at(2).to(at::kDouble).contiguous();
    if (s.numel() != 4) return invalid_argument("{}: scales needs 4 entries", x.node.label());
    const double* p = s.data_ptr<double>();
    if (p[0] != 1.0 || p[1] != 1.0) {
      return unsupported("{}: Resize of N or C is not mapped onto ATen", x.node.label());
    }
    // ONNX's output size is floor(in * scale); the kernels map coordinates with 1/scale.
    size = {static_cast<int64_t>(std::floor(X.size(2) * p[2])),
            static_cast<int64_t>(std::floor(X.size(3) * p[3]))};
    scale_h = p[2];
    scale_w = p[3];
  } else {
    return invalid_argument("{}: Resize needs scales or sizes", x.node.label());
  }
  switch (kernel) {
    case Kernel::kBilinear: {
      const std::string coord = x.node.attr_string("coordinate_transformation_mode", "half_pixel");
      if (coord == "half_pixel" && (size[0] == 1 || size[1] == 1) && !scale_h) {
        return unsupported(
            "{}: half_pixel to an output of size 1 differs from ATen's "
            "pytorch_half_pixel",
            x.node.label());
      }
      return one(at::upsample_bilinear2d(X, size, coord == "align_corners", scale_h, scale_w),
                 "aten::upsample_bilinear2d");
    }
    case Kernel::kNearest:
      return one(at::upsample_nearest2d(X, size, scale_h, scale_w), "aten::upsample_nearest2d");
    default:
      return one(at::_upsample_nearest_exact2d(X, size, scale_h, scale_w),
                 "aten::_upsample_nearest_exact2d");
  }
}

}  // namespace

const std::vector<OpDef>& resize_ops() {
  static const std::vector<OpDef> table = {
      {"", "Cast", 1, kMaxOpset, cast, nullptr},
      {"", "Resize", 11, kMaxOpset, resize, check_resize},
  };
  return table;
}

}  // namespace ig::torchb

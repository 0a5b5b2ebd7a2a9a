// Data layout operators beyond the reference kernels' data movement (Reshape, Flatten, ...):
// Transpose, Concat, Split, Slice, Gather, Pad, Expand, Tile, Cast and Resize as ATen calls, so
// a model runs on ATen end to end. Resize maps onto F.interpolate's kernels where ONNX's
// coordinate mode is one of theirs.
#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

Expected<OpResult> transpose(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  std::vector<int64_t> perm = x.node.attr_ints("perm");
  if (perm.empty()) {
    for (int64_t d = X.dim() - 1; d >= 0; --d) perm.push_back(d);
  }
  if (static_cast<int64_t>(perm.size()) != X.dim()) {
    return invalid_argument("{}: perm has {} entries for rank {}", x.node.label(), perm.size(),
                            X.dim());
  }
  return one(X.permute(perm).contiguous(), "aten::permute");
}

Expected<OpResult> concat(const OpInputs& x) {
  std::vector<at::Tensor> parts;
  for (const auto& t : x.in) {
    if (t.defined()) parts.push_back(t);
  }
  if (parts.empty()) return invalid_argument("{}: no inputs", x.node.label());
  IG_ASSIGN_OR_RETURN(auto axes,
                      normalize_axes(x.node, {x.node.attr_int("axis", 0)}, parts[0].dim()));
  return one(at::cat(parts, axes[0]), "aten::cat");
}

Expected<OpResult> split(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  IG_ASSIGN_OR_RETURN(auto axes, normalize_axes(x.node, {x.node.attr_int("axis", 0)}, X.dim()));
  std::vector<int64_t> sizes = x.opset >= 13
                                   ? (x.has(1) ? int_list(x.at(1)) : std::vector<int64_t>{})
                                   : x.node.attr_ints("split");
  const int64_t n = static_cast<int64_t>(x.node.outputs.size());
  const int64_t len = X.size(axes[0]);
  if (sizes.empty()) {
    // Equal parts; since opset 18 the last may be smaller.
    const int64_t part = (len + n - 1) / n;
    for (int64_t i = 0; i < n; ++i) sizes.push_back(std::min(part, len - part * i));
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  if (total != len || static_cast<int64_t>(sizes.size()) != n) {
    return invalid_argument("{}: split sizes sum to {} over {} outputs, axis has {}",
                            x.node.label(), total, sizes.size(), len);
  }
  OpResult r{{}, "aten::split_with_sizes"};
  for (const auto& part : at::split_with_sizes(X, sizes, axes[0]))
    r.outs.push_back(part.contiguous());
  return r;
}

Expected<OpResult> slice(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (x.opset < 10) {
    starts = x.node.attr_ints("starts");
    ends = x.node.attr_ints("ends");
    axes = x.node.attr_ints("axes");
  } else {
    starts = int_list(x.at(1));
    ends = int_list(x.at(2));
    if (x.has(3)) axes = int_list(x.at(3));
    if (x.has(4)) steps = int_list(x.at(4));
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return invalid_argument("{}: starts, ends, axes and steps differ in length", x.node.label());
  }
  IG_ASSIGN_OR_RETURN(axes, normalize_axes(x.node, axes, X.dim()));
  at::Tensor y = X;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t dim = X.size(axes[i]);
    const int64_t step = steps[i];
    if (step == 0) return invalid_argument("{}: step 0", x.node.label());
    auto clamp_index = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0) v += dim;
      return std::clamp(v, lo, hi);
    };
    if (step > 0) {
      const int64_t b = clamp_index(starts[i], 0, dim), e = clamp_index(ends[i], 0, dim);
      y = y.slice(axes[i], b, std::max(b, e), step);
    } else {
      // Negative steps: flip, then slice forward.
      const int64_t b = clamp_index(starts[i], -1, dim - 1), e = clamp_index(ends[i], -1, dim - 1);
      const int64_t count = b > e ? (b - e + (-step) - 1) / (-step) : 0;
      y = y.flip(axes[i]).slice(axes[i], dim - 1 - b, dim - 1 - b + count * (-step), -step);
    }
  }
  return one(y.contiguous(), "aten::slice");
}

Expected<OpResult> gather(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  IG_ASSIGN_OR_RETURN(auto axes, normalize_axes(x.node, {x.node.attr_int("axis", 0)}, X.dim()));
  at::Tensor idx = x.at(1).to(at::kLong);
  const int64_t dim = X.size(axes[0]);
  if (idx.numel() > 0 && (idx.min().item<int64_t>() < -dim || idx.max().item<int64_t>() >= dim)) {
    return invalid_argument("{}: index out of range [{}, {})", x.node.label(), -dim, dim);
  }
  idx = at::where(idx < 0, idx + dim, idx);
  const at::Tensor flat = at::index_select(X, axes[0], idx.reshape({-1}));
  std::vector<int64_t> shape(X.sizes().begin(), X.sizes().begin() + axes[0]);
  shape.insert(shape.end(), idx.sizes().begin(), idx.sizes().end());
  shape.insert(shape.end(), X.sizes().begin() + axes[0] + 1, X.sizes().end());
  return one(flat.reshape(shape), "aten::index_select");
}

Status check_pad(const Node& node, const Model& model) {
  const std::string mode = node.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return unsupported("{}: Pad mode '{}' is not mapped onto ATen", node.label(), mode);
  }
  return Status::Ok();
}

Expected<OpResult> pad(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  std::vector<int64_t> pads = x.opset < 11 ? x.node.attr_ints("pads") : int_list(x.at(1));
  std::vector<int64_t> axes;
  if (x.opset >= 18 && x.has(3)) {
    IG_ASSIGN_OR_RETURN(axes, normalize_axes(x.node, int_list(x.at(3)), X.dim()));
  } else {
    for (int64_t d = 0; d < X.dim(); ++d) axes.push_back(d);
  }
  const size_t n = axes.size();
  if (pads.size() != 2 * n) {
    return invalid_argument("{}: {} pads for {} axes", x.node.label(), pads.size(), n);
  }
  std::vector<int64_t> full(2 * static_cast<size_t>(X.dim()), 0);
  for (size_t i = 0; i < n; ++i) {
    full[static_cast<size_t>(axes[i])] = pads[i];
    full[static_cast<size_t>(axes[i] + X.dim())] = pads[i + n];
  }
  std::vector<int64_t> aten_pad;  // last dimension first
  for (int64_t d = X.dim() - 1; d >= 0; --d) {
    aten_pad.push_back(full[static_cast<size_t>(d)]);
    aten_pad.push_back(full[static_cast<size_t>(d + X.dim())]);
  }
  const std::string mode = x.node.attr_string("mode", "constant");
  if (mode == "constant") {
    double value =
        x.opset < 11 ? x.node.attr_float("value", 0.0f) : (x.has(2) ? x.at(2).item<double>() : 0.0);
    return one(at::constant_pad_nd(X, aten_pad, value), "aten::constant_pad_nd");
  }
  // reflect/replicate pad only the trailing spatial dims in ATen.
  const std::string aten_mode = mode == "reflect" ? "reflect" : "replicate";
  size_t leading = 0;
  while (leading < aten_pad.size() && leading / 2 < static_cast<size_t>(X.dim()) &&
         (aten_pad[leading] != 0 || aten_pad[leading + 1] != 0)) {
    leading += 2;
  }
  for (size_t i = leading; i < aten_pad.size(); ++i) {
    if (aten_pad[i] != 0 || X.dim() - static_cast<int64_t>(leading / 2) < 2) {
      return unsupported("{}: Pad mode '{}' pads only trailing spatial dims in ATen",
                         x.node.label(), mode);
    }
  }
  aten_pad.resize(leading);
  return one(at::pad(X, aten_pad, aten_mode), "aten::pad(" + aten_mode + ")");
}

Expected<OpResult> expand(const OpInputs& x) {
  const at::Tensor& X = x.at(0);
  std::vector<int64_t> shape = int_list(x.at(1));
  // ONNX broadcasts both ways (a 1 in `shape` keeps X's size); ATen expands X only.
  const int64_t rank = std::max<int64_t>(X.dim(), static_cast<int64_t>(shape.size()));
  std::vector<int64_t> out(static_cast<size_t>(rank), 1);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t xi = i - (rank - X.dim()), si = i - (rank - static_cast<int64_t>(shape.size()));
    const int64_t a = xi >= 0 ? X.size(xi) : 1;
    const int64_t b = si >= 0 ? shape[static_cast<size_t>(si)] : 1;
    if (a != b && a != 1 && b != 1) {
      return invalid_argument("{}: cannot broadcast dim {} of size {} to {}", x.node.label(), i, a,
                              b);
    }
    out[static_cast<size_t>(i)] = a == 1 ? b : a;
  }
  return one(X.expand(out).contiguous(), "aten::expand");
}

Expected<OpResult> tile(const OpInputs& x) {
  return one(x.at(0).repeat(int_list(x.at(1))), "aten::repeat");
}

}  // namespace

const std::vector<OpDef>& shape_ops() {
  static const std::vector<OpDef> table = {
      {"", "Transpose", 1, kMaxOpset, transpose, nullptr},
      {"", "Concat", 1, kMaxOpset, concat, nullptr},
      {"", "Split", 1, kMaxOpset, split, nullptr},
      {"", "Slice", 1, kMaxOpset, slice, nullptr},
      {"", "Gather", 1, kMaxOpset, gather, nullptr},
      {"", "Pad", 1, kMaxOpset, pad, check_pad},
      {"", "Expand", 8, kMaxOpset, expand, nullptr},
      {"", "Tile", 6, kMaxOpset, tile, nullptr},
  };
  return table;
}

}  // namespace ig::torchb

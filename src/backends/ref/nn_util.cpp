#include "backends/ref/nn_util.h"

#include "model/quant_scales.h"

#include <algorithm>
#include <map>

namespace ig {
namespace {

// "y_scale 's'": the ONNX name of a quantized operator's input, then the model's value name.
std::string quant_input_name(const KernelContext& ctx, size_t input) {
  const std::string value = input < ctx.node.inputs.size() ? ctx.node.inputs[input] : "";
  const std::string formal = formal_input_name(ctx.node.domain, ctx.node.op_type, ctx.opset, input);
  if (formal.empty()) return fmt::format("input #{} '{}'", input, value);
  return fmt::format("{} '{}'", formal, value);
}

Expected<std::vector<int64_t>> spatial_attr(const KernelContext& ctx, const char* name, size_t n,
                                            int64_t fallback, int64_t min_value) {
  std::vector<int64_t> v = ctx.node.attr_ints(name, std::vector<int64_t>(n, fallback));
  if (v.empty()) v.assign(n, fallback);
  if (v.size() != n) {
    return ctx.fail("attribute {} has {} values, expected {} (one per spatial dim)", name, v.size(),
                    n);
  }
  for (int64_t x : v) {
    if (x < min_value) return ctx.fail("attribute {} has invalid value {}", name, x);
  }
  return v;
}

}  // namespace

Expected<WindowGeometry> window_geometry(const KernelContext& ctx, const Shape& in_spatial,
                                         const Shape& kernel, bool ceil_mode, bool use_dilations) {
  const size_t nd = in_spatial.size();
  WindowGeometry g;
  g.in = in_spatial;
  g.kernel = kernel;
  if (kernel.size() != nd) {
    return ctx.fail("kernel has {} spatial dims but the input has {}", kernel.size(), nd);
  }
  for (int64_t k : kernel) {
    if (k <= 0) return ctx.fail("kernel shape {} has a non-positive dim", shape_to_string(kernel));
  }
  IG_ASSIGN_OR_RETURN(g.strides, spatial_attr(ctx, "strides", nd, 1, 1));
  if (use_dilations) {
    IG_ASSIGN_OR_RETURN(g.dilations, spatial_attr(ctx, "dilations", nd, 1, 1));
  } else {
    g.dilations.assign(nd, 1);
  }
  IG_ASSIGN_OR_RETURN(std::vector<int64_t> pads, spatial_attr(ctx, "pads", 2 * nd, 0, 0));
  const std::string auto_pad = ctx.node.attr_string("auto_pad", "NOTSET");
  g.pad_begin.assign(nd, 0);
  g.pad_end.assign(nd, 0);
  g.out.assign(nd, 0);
  for (size_t d = 0; d < nd; ++d) {
    const int64_t eff = (kernel[d] - 1) * g.dilations[d] + 1;  // dilated kernel extent
    const int64_t s = g.strides[d];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g.out[d] = (in_spatial[d] + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (g.out[d] - 1) * s + eff - in_spatial[d]);
      g.pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pad_end[d] = total - g.pad_begin[d];
      continue;
    }
    if (auto_pad == "NOTSET") {
      g.pad_begin[d] = pads[d];
      g.pad_end[d] = pads[d + nd];
    } else if (auto_pad != "VALID") {
      return ctx.fail("unknown auto_pad '{}'", auto_pad);
    }
    const int64_t span = in_spatial[d] + g.pad_begin[d] + g.pad_end[d] - eff;
    if (span < 0) {
      return ctx.fail("window of extent {} is larger than the padded input ({}) in spatial dim {}",
                      eff, in_spatial[d] + g.pad_begin[d] + g.pad_end[d], d);
    }
    g.out[d] = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    // ceil_mode: the last window must start inside the input or the left padding (as PyTorch).
    if (ceil_mode && (g.out[d] - 1) * s >= in_spatial[d] + g.pad_begin[d]) --g.out[d];
  }
  return g;
}

std::vector<int64_t> window_counts(const WindowGeometry& g, bool include_pad) {
  const size_t nd = g.in.size();
  // Per dim: count of taps inside the allowed range for each output coordinate.
  std::vector<std::vector<int64_t>> per_dim(nd);
  for (size_t d = 0; d < nd; ++d) {
    const int64_t lo = include_pad ? -g.pad_begin[d] : 0;
    const int64_t hi = include_pad ? g.in[d] + g.pad_end[d] : g.in[d];
    for (int64_t o = 0; o < g.out[d]; ++o) {
      int64_t n = 0;
      for (int64_t k = 0; k < g.kernel[d]; ++k) {
        const int64_t p = o * g.strides[d] - g.pad_begin[d] + k * g.dilations[d];
        n += (p >= lo && p < hi) ? 1 : 0;
      }
      per_dim[d].push_back(n);
    }
  }
  std::vector<int64_t> counts(static_cast<size_t>(g.out_size()), 1);
  std::vector<int64_t> opos(nd, 0);
  for (auto& c : counts) {
    for (size_t d = 0; d < nd; ++d) c *= per_dim[d][static_cast<size_t>(opos[d])];
    for (size_t d = nd; d-- > 0;) {
      if (++opos[d] < g.out[d]) break;
      opos[d] = 0;
    }
  }
  return counts;
}

Status expect_nchw(const KernelContext& ctx, const Tensor& x, const char* what, int min_rank) {
  if (x.rank() < min_rank) {
    return ctx.fail("{} must have rank >= {} ([N, C, spatial...]), got {}", what, min_rank,
                    shape_to_string(x.shape()));
  }
  return Status::Ok();
}

Status expect_qparam(const KernelContext& ctx, size_t input, int64_t n) {
  if (!ctx.has_input(input)) return Status::Ok();
  const Tensor& t = ctx.input(input);
  if (t.numel() == 1 && t.rank() <= 1) return Status::Ok();
  if (n > 0 && t.rank() == 1 && t.dim(0) == n) return Status::Ok();
  return ctx.fail(
      "{} has shape {}, expected a scalar{}", quant_input_name(ctx, input),
      shape_to_string(t.shape()),
      n > 0 ? fmt::format(" or [{}] (one per element along the axis)", n) : std::string());
}

Status expect_quant_params(const KernelContext& ctx, std::initializer_list<size_t> scales,
                           std::initializer_list<QOperand> operands) {
  for (size_t i : scales) {
    if (!ctx.has_input(i)) continue;
    const Tensor& t = ctx.input(i);
    if (!is_float(t.dtype()))
      return ctx.fail("{} is {}; a scale is floating", quant_input_name(ctx, i), t.describe());
    for (int64_t k = 0; k < t.numel(); ++k) {
      const double v = t.as_double(k);
      if (!(std::isfinite(v) && v > 0)) {
        return ctx.fail("{} is {} (element {}); a scale must be finite and above 0",
                        quant_input_name(ctx, i), v, k);
      }
    }
  }
  for (const QOperand& q : operands) {
    const bool has_data = q.data != kNoInput && ctx.has_input(q.data);
    const bool has_zp = ctx.has_input(q.zero_point);
    const size_t typed = has_data ? q.data : q.zero_point;  // what fixes the operand's type
    if (!has_data && !has_zp) continue;
    const DType dt = ctx.input(typed).dtype();
    if (q.eight_bit && dt != DType::kInt8 && dt != DType::kUInt8) {
      return ctx.unsupported_here("{} is {}; the reference kernels quantize to int8 or uint8",
                                  quant_input_name(ctx, typed), dtype_name(dt));
    }
    if (has_data && has_zp && ctx.input(q.zero_point).dtype() != dt) {
      return ctx.fail("{} is {} but {} is {}; ONNX requires the same type",
                      quant_input_name(ctx, q.zero_point),
                      dtype_name(ctx.input(q.zero_point).dtype()), quant_input_name(ctx, q.data),
                      dtype_name(dt));
    }
  }
  return Status::Ok();
}

Status expect_quant_block_size(const KernelContext& ctx, int64_t block) {
  if (block < 16 || (block & (block - 1)) != 0)
    return ctx.fail("block_size {} is not a power of 2 of at least 16", block);
  return Status::Ok();
}

}  // namespace ig

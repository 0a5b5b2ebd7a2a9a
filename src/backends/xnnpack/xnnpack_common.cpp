#include "backends/xnnpack/xnnpack_common.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ig::xnnpack {

Status initialize() {
  static const xnn_status kStatus = xnn_initialize(nullptr);
  if (kStatus != xnn_status_success) {
    return unsupported("xnn_initialize failed ({}): XNNPACK does not run on this CPU",
                       status_name(kStatus));
  }
  return Status::Ok();
}

bool has_f16_operators() {
  static const bool kHas = [] {
    if (!initialize().ok()) return false;
    // A 3x3 convolution of 8 channels: the kind of operator fp16=on needs most.
    const std::vector<uint16_t> kernel(8 * 8 * 9, 0), bias(8, 0);
    xnn_operator_t op = nullptr;
    const xnn_status s =
        xnn_create_convolution2d_nhwc_f16(1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1, 8, 8, 8, 8,
                                          kernel.data(), bias.data(), -INFINITY, INFINITY, 0, &op);
    if (op) xnn_delete_operator(op);
    return s == xnn_status_success;
  }();
  return kHas;
}

const char* status_name(xnn_status s) {
  switch (s) {
    case xnn_status_success:
      return "xnn_status_success";
    case xnn_status_uninitialized:
      return "xnn_status_uninitialized";
    case xnn_status_invalid_parameter:
      return "xnn_status_invalid_parameter";
    case xnn_status_invalid_state:
      return "xnn_status_invalid_state";
    case xnn_status_unsupported_parameter:
      return "xnn_status_unsupported_parameter";
    case xnn_status_unsupported_hardware:
      return "xnn_status_unsupported_hardware";
    case xnn_status_out_of_memory:
      return "xnn_status_out_of_memory";
  }
  return "unknown xnn_status";
}

std::string call_name(const char* step, const std::string& name, bool half) {
  return fmt::format("xnn_{}_{}_{}", step, name, half ? "f16" : "f32");
}

Status check(xnn_status s, const Node& node, const std::string& call) {
  switch (s) {
    case xnn_status_success:
      return Status::Ok();
    case xnn_status_invalid_parameter:
    case xnn_status_unsupported_parameter:
    case xnn_status_unsupported_hardware:
      return unsupported("{}: XNNPACK's {} refused the node's parameters ({})", node.label(), call,
                         status_name(s));
    case xnn_status_out_of_memory:
      return resource_exhausted("{}: {}: XNNPACK ran out of memory", node.label(), call);
    default:
      return internal_error("{}: {} failed ({})", node.label(), call, status_name(s));
  }
}

Status run(Ctx& c, const Node& node, xnn_operator_t op) {
  return check(xnn_run_operator(op, c.pool), node, "xnn_run_operator");
}

Buffer::Buffer(size_t n, bool half) : n_(n), half_(half) {
  const size_t bytes = n * (half ? 2 : 4) + XNN_EXTRA_BYTES;
  store_.assign((bytes + sizeof(float) - 1) / sizeof(float), 0.0f);
}

Buffer copy_of(const Tensor& t) {
  Buffer b(static_cast<size_t>(t.numel()), false);
  if (t.numel() > 0) std::memcpy(b.f32(), t.raw(), t.nbytes());
  return b;
}

Buffer nchw_to_nhwc(const Tensor& t) {
  const Shape s = as_image(t.shape());
  const int64_t n = s[0], c = s[1], hw = s[2] * s[3];
  Buffer b(static_cast<size_t>(t.numel()), false);
  const float* src = t.data<float>();
  float* dst = b.f32();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const float* plane = src + (i * c + ch) * hw;
      for (int64_t p = 0; p < hw; ++p) dst[(i * hw + p) * c + ch] = plane[p];
    }
  }
  return b;
}

Tensor tensor_of(const Buffer& b, const Shape& shape) {
  Tensor t(DType::kFloat32, shape);
  if (t.numel() > 0) std::memcpy(t.raw(), b.f32(), t.nbytes());
  return t;
}

Tensor nhwc_to_nchw(const Buffer& b, const Shape& shape) {
  Tensor t(DType::kFloat32, shape);
  const Shape s = as_image(shape);
  const int64_t n = s[0], c = s[1], hw = s[2] * s[3];
  const float* src = b.f32();
  float* dst = t.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = 0; p < hw; ++p) {
      for (int64_t ch = 0; ch < c; ++ch) dst[(i * c + ch) * hw + p] = src[(i * hw + p) * c + ch];
    }
  }
  return t;
}

namespace {

// One convert operator over the whole buffer (a batch of one row of n channels).
template <typename Create, typename Setup>
Expected<Buffer> convert(Ctx& c, const Node& node, const Buffer& b, bool half, Create create,
                         Setup setup, const char* call) {
  Buffer out(b.size(), half);
  if (b.size() == 0) return out;
  xnn_operator_t raw = nullptr;
  IG_RETURN_IF_ERROR(check(create(b.size(), b.size(), b.size(), 0, &raw), node,
                           fmt::format("xnn_create_{}", call)));
  const Operator op(raw);
  IG_RETURN_IF_ERROR(check(setup(op.get(), 1, b.data(), out.data(), c.pool), node,
                           fmt::format("xnn_setup_{}", call)));
  IG_RETURN_IF_ERROR(run(c, node, op.get()));
  return out;
}

}  // namespace

Expected<Buffer> to_half(Ctx& c, const Node& node, const Buffer& b) {
  return convert(
      c, node, b, true, xnn_create_convert_nc_f32_f16,
      [](xnn_operator_t op, size_t batch, const void* in, void* out, pthreadpool_t pool) {
        return xnn_setup_convert_nc_f32_f16(op, batch, static_cast<const float*>(in), out, pool);
      },
      "convert_nc_f32_f16");
}

Expected<Buffer> to_float(Ctx& c, const Node& node, const Buffer& b) {
  return convert(
      c, node, b, false, xnn_create_convert_nc_f16_f32,
      [](xnn_operator_t op, size_t batch, const void* in, void* out, pthreadpool_t pool) {
        return xnn_setup_convert_nc_f16_f32(op, batch, in, static_cast<float*>(out), pool);
      },
      "convert_nc_f16_f32");
}

Expected<Buffer> in_precision(Ctx& c, const Node& node, Buffer b, bool half) {
  if (!half) return b;
  return to_half(c, node, b);
}

Shape as_image(const Shape& nchw) {
  if (nchw.size() != 3) return nchw;
  return {nchw[0], nchw[1], 1, nchw[2]};
}

Expected<Window2d> window_2d(const Node& node, const Shape& spatial,
                             const std::vector<int64_t>& kernel, bool ceil_mode, bool attrs) {
  const size_t n = kernel.size();
  if (n < 1 || n > 2 || spatial.size() != n) {
    return unsupported("{}: XNNPACK's windows are 2-D (or 1-D as height 1), not {}-D", node.label(),
                       spatial.size());
  }
  const std::vector<int64_t> ones(n, 1);
  std::vector<int64_t> strides = attrs ? node.attr_ints("strides", ones) : ones;
  std::vector<int64_t> dilations = attrs ? node.attr_ints("dilations", ones) : ones;
  std::vector<int64_t> pads =
      attrs ? node.attr_ints("pads", std::vector<int64_t>(2 * n, 0)) : std::vector<int64_t>(2 * n);
  if (strides.size() != n || dilations.size() != n || pads.size() != 2 * n) {
    return invalid_argument("{}: strides/dilations/pads do not match {} spatial dims", node.label(),
                            n);
  }
  const std::string auto_pad = attrs ? node.attr_string("auto_pad", "NOTSET") : "NOTSET";
  std::vector<int64_t> pb(n), pe(n), out(n);
  for (size_t i = 0; i < n; ++i) {
    if (strides[i] < 1 || dilations[i] < 1 || kernel[i] < 1 || pads[i] < 0 || pads[i + n] < 0) {
      return invalid_argument(
          "{}: strides, dilations and kernel must be positive, pads not "
          "negative",
          node.label());
    }
    const int64_t size = spatial[i];
    const int64_t extent = (kernel[i] - 1) * dilations[i] + 1;
    pb[i] = pads[i];
    pe[i] = pads[i + n];
    if (auto_pad == "VALID") {
      pb[i] = pe[i] = 0;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t o = (size + strides[i] - 1) / strides[i];
      const int64_t total = std::max<int64_t>((o - 1) * strides[i] + extent - size, 0);
      pb[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe[i] = total - pb[i];
    } else if (auto_pad != "NOTSET") {
      return invalid_argument("{}: unknown auto_pad '{}'", node.label(), auto_pad);
    }
    const int64_t span = size + pb[i] + pe[i] - extent;
    if (span < 0) return invalid_argument("{}: window larger than the padded input", node.label());
    out[i] = span / strides[i] + 1;
    if (ceil_mode && span % strides[i] != 0) {
      ++out[i];
      // A window may not start in the end padding (ONNX and PyTorch drop it).
      if ((out[i] - 1) * strides[i] >= size + pb[i]) --out[i];
    }
    // XNNPACK's output size is floor((padded - extent) / stride) + 1: pad the end to match.
    pe[i] = std::max<int64_t>(pe[i], (out[i] - 1) * strides[i] + extent - size - pb[i]);
  }
  Window2d w;
  const size_t x = n - 1;  // the width axis; a 1-D window has height 1
  auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
  w.kw = u32(kernel[x]);
  w.sw = u32(strides[x]);
  w.dw = u32(dilations[x]);
  w.left = u32(pb[x]);
  w.right = u32(pe[x]);
  w.ow = out[x];
  if (n == 2) {
    w.kh = u32(kernel[0]);
    w.sh = u32(strides[0]);
    w.dh = u32(dilations[0]);
    w.top = u32(pb[0]);
    w.bottom = u32(pe[0]);
    w.oh = out[0];
  }
  return w;
}

}  // namespace ig::xnnpack

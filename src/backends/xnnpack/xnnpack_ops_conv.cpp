// Conv as XNNPACK's convolution2d_nhwc, grouped and depthwise included (XNNPACK picks its
// depthwise kernels itself when each group has one input and one output channel). ONNX is NCHW:
// the input is copied to NHWC, the OIHW weights to XNNPACK's [group][out][kh][kw][in] (OHWI), and
// the NHWC output back to NCHW.
#include "backends/xnnpack/xnnpack_ops.h"

namespace ig::xnnpack {

namespace {

Status check_conv(const Node& n, const Model&) {
  if (n.has_attr("kernel_shape")) {
    const size_t k = n.attr_ints("kernel_shape").size();
    if (k < 1 || k > 2) {
      return unsupported("{}: XNNPACK convolves 2-D (and here 1-D) images, not {}-D", n.label(), k);
    }
  }
  return Status::Ok();
}

// OIHW -> OHWI. With M = group * (outputs per group) ordered group-major, this is XNNPACK's
// [group][group output channel][kh][kw][group input channel].
Buffer ohwi_of(const Tensor& w) {
  const Shape s = as_image(w.shape());
  const int64_t m = s[0], ci = s[1], hw = s[2] * s[3];
  Buffer b(static_cast<size_t>(w.numel()), false);
  const float* src = w.data<float>();
  for (int64_t o = 0; o < m; ++o) {
    for (int64_t i = 0; i < ci; ++i) {
      for (int64_t p = 0; p < hw; ++p) b.f32()[(o * hw + p) * ci + i] = src[(o * ci + i) * hw + p];
    }
  }
  return b;
}

Expected<OpResult> run_conv(Ctx& c, const OpInputs& x) {
  IG_RETURN_IF_ERROR(require_float(x));
  IG_RETURN_IF_ERROR(require_nonempty(x));
  const Node& n = x.node;
  const Tensor& X = x.at(0);
  const Tensor& W = x.at(1);
  if ((X.rank() != 3 && X.rank() != 4) || W.rank() != X.rank()) {
    return unsupported("{}: XNNPACK convolves 2-D (and here 1-D) images (input {}, weights {})",
                       n.label(), X.describe(), W.describe());
  }
  const Shape xs = as_image(X.shape()), ws = as_image(W.shape());
  const int64_t group = n.attr_int("group", 1), m = ws[0];
  if (group < 1 || m % group != 0 || xs[1] != ws[1] * group) {
    return invalid_argument("{}: channels {} / weights {} / group {} do not match", n.label(),
                            xs[1], W.describe(), group);
  }
  const bool has_bias = x.has(2);
  if (has_bias && x.at(2).numel() != m) {
    return invalid_argument("{}: bias {} does not have {} elements", n.label(), x.at(2).describe(),
                            m);
  }
  IG_ASSIGN_OR_RETURN(
      Window2d w, window_2d(n, Shape(X.shape().begin() + 2, X.shape().end()),
                            std::vector<int64_t>(W.shape().begin() + 2, W.shape().end()), false));
  Shape out = {xs[0], m, w.oh, w.ow};
  if (X.rank() == 3) out = {xs[0], m, w.ow};

  const bool half = c.opt.fp16;
  IG_ASSIGN_OR_RETURN(Buffer in, in_precision(c, n, nchw_to_nhwc(X), half));
  IG_ASSIGN_OR_RETURN(Buffer kernel, in_precision(c, n, ohwi_of(W), half));
  Buffer bias;
  if (has_bias) {
    IG_ASSIGN_OR_RETURN(bias, in_precision(c, n, copy_of(x.at(2)), half));
  }
  const void* bias_data = has_bias ? bias.data() : nullptr;
  Buffer y(static_cast<size_t>(xs[0] * w.oh * w.ow * m), half);

  const auto g = static_cast<uint32_t>(group);
  const auto icpg = static_cast<size_t>(ws[1]), ocpg = static_cast<size_t>(m / group);
  const auto cin = static_cast<size_t>(xs[1]), cout = static_cast<size_t>(m);
  xnn_operator_t raw = nullptr;
  const xnn_status created =
      half ? xnn_create_convolution2d_nhwc_f16(
                 w.top, w.right, w.bottom, w.left, w.kh, w.kw, w.sh, w.sw, w.dh, w.dw, g, icpg,
                 ocpg, cin, cout, kernel.data(), bias_data, -INFINITY, INFINITY, 0, &raw)
           : xnn_create_convolution2d_nhwc_f32(w.top, w.right, w.bottom, w.left, w.kh, w.kw, w.sh,
                                               w.sw, w.dh, w.dw, g, icpg, ocpg, cin, cout,
                                               kernel.f32(), static_cast<const float*>(bias_data),
                                               -INFINITY, INFINITY, 0, &raw);
  IG_RETURN_IF_ERROR(check(created, n, call_name("create", "convolution2d_nhwc", half)));
  const Operator op(raw);
  const auto batch = static_cast<size_t>(xs[0]);
  const auto h = static_cast<size_t>(xs[2]), wd = static_cast<size_t>(xs[3]);
  const xnn_status set =
      half ? xnn_setup_convolution2d_nhwc_f16(op.get(), batch, h, wd, in.data(), y.data(), c.pool)
           : xnn_setup_convolution2d_nhwc_f32(op.get(), batch, h, wd, in.f32(), y.f32(), c.pool);
  IG_RETURN_IF_ERROR(check(set, n, call_name("setup", "convolution2d_nhwc", half)));
  IG_RETURN_IF_ERROR(run(c, n, op.get()));
  if (half) {
    IG_ASSIGN_OR_RETURN(y, to_float(c, n, y));
  }
  std::string layout = "NCHW->NHWC";
  if (group > 1) layout += fmt::format(", groups={}", group);
  return OpResult{nhwc_to_nchw(y, out), note_of("convolution2d_nhwc", half, layout)};
}

}  // namespace

const std::vector<OpDef>& conv_ops() {
  static const std::vector<OpDef> kOps = {
      {"", "Conv", 1, kMaxOpset, run_conv, check_conv},
  };
  return kOps;
}

}  // namespace ig::xnnpack

// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool as XNNPACK's NHWC pools (input copied
// NCHW -> NHWC, output back). XNNPACK's average pool divides by the pixels of the window inside
// the input, ONNX's count_include_pad=0; it has no dilated average pool and no 1x1 windows.
#include <algorithm>

#include "backends/xnnpack/xnnpack_ops.h"
#include "backends/xnnpack/xnnpack_ops_int8.h"

namespace ig::xnnpack {

namespace {

Status check_window_rank(const Node& n) {
  if (n.has_attr("kernel_shape")) {
    const size_t k = n.attr_ints("kernel_shape").size();
    if (k < 1 || k > 2) {
      return unsupported("{}: XNNPACK pools 2-D (and here 1-D) images, not {}-D", n.label(), k);
    }
  }
  return Status::Ok();
}

Status check_maxpool(const Node& n, const Model&) {
  IG_RETURN_IF_ERROR(check_window_rank(n));
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) {
    return unsupported("{}: MaxPool's Indices output: XNNPACK's argmax pool has no strides",
                       n.label());
  }
  return Status::Ok();
}

bool any_nonzero(const std::vector<int64_t>& v) {
  return std::any_of(v.begin(), v.end(), [](int64_t x) { return x != 0; });
}

Status check_avgpool(const Node& n, const Model&) {
  IG_RETURN_IF_ERROR(check_window_rank(n));
  const auto dil = n.attr_ints("dilations");
  if (std::any_of(dil.begin(), dil.end(), [](int64_t d) { return d != 1; })) {
    return unsupported("{}: AveragePool with dilations: XNNPACK's average pool has none",
                       n.label());
  }
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  const bool pads = any_nonzero(n.attr_ints("pads")) || auto_pad.rfind("SAME", 0) == 0;
  if (n.attr_int("count_include_pad", 0) != 0 && pads) {
    return unsupported(
        "{}: AveragePool with count_include_pad=1 and padding: XNNPACK divides by the pixels "
        "inside the input only",
        n.label());
  }
  return Status::Ok();
}

std::string f32_note(const Ctx& c, const std::string& layout) {
  return c.opt.fp16 ? layout + "; fp32: no f16 operator for it in this XNNPACK" : layout;
}

// MaxPool and AveragePool over a window; GlobalMaxPool as a max pool of the whole image.
Expected<OpResult> run_window_pool(Ctx& c, const OpInputs& x) {
  const Node& n = x.node;
  const Tensor& X = x.at(0);
  // A QOperator model's MaxPool runs on the integers.
  const bool int8 =
      n.op_type == "MaxPool" && (X.dtype() == DType::kUInt8 || X.dtype() == DType::kInt8);
  if (!int8) IG_RETURN_IF_ERROR(require_float(x));
  IG_RETURN_IF_ERROR(require_nonempty(x));
  if (X.rank() != 3 && X.rank() != 4) {
    return unsupported("{}: XNNPACK pools 2-D (and here 1-D) images, not {}", n.label(),
                       X.describe());
  }
  const bool global = n.op_type == "GlobalMaxPool";
  const bool max = n.op_type != "AveragePool";
  const Shape spatial(X.shape().begin() + 2, X.shape().end());
  const std::vector<int64_t> kernel = global ? spatial : n.attr_ints("kernel_shape");
  IG_ASSIGN_OR_RETURN(Window2d w,
                      window_2d(n, spatial, kernel, n.attr_int("ceil_mode", 0) != 0, !global));
  if (w.kh * w.kw == 1) {
    return unsupported("{}: a 1x1 pooling window, which XNNPACK refuses", n.label());
  }
  if (!max && w.padded() && n.attr_int("count_include_pad", 0) != 0) {
    return unsupported(
        "{}: count_include_pad=1 with padding (ceil_mode): XNNPACK divides by the "
        "pixels inside the input only",
        n.label());
  }
  const Shape xs = as_image(X.shape());
  Shape out = {xs[0], xs[1], w.oh, w.ow};
  if (X.rank() == 3) out = {xs[0], xs[1], w.ow};
  if (int8) return run_int8_max_pool(c, x, w, out);
  const bool half = c.opt.fp16 && max;  // XNNPACK 2022 has no f16 average pool
  IG_ASSIGN_OR_RETURN(Buffer in, in_precision(c, n, nchw_to_nhwc(X), half));
  Buffer y(static_cast<size_t>(xs[0] * xs[1] * w.oh * w.ow), half);
  const auto ch = static_cast<size_t>(xs[1]);
  xnn_operator_t raw = nullptr;
  xnn_status created;
  if (!max) {
    created =
        xnn_create_average_pooling2d_nhwc_f32(w.top, w.right, w.bottom, w.left, w.kh, w.kw, w.sh,
                                              w.sw, ch, ch, ch, -INFINITY, INFINITY, 0, &raw);
  } else if (half) {
    created =
        xnn_create_max_pooling2d_nhwc_f16(w.top, w.right, w.bottom, w.left, w.kh, w.kw, w.sh, w.sw,
                                          w.dh, w.dw, ch, ch, ch, -INFINITY, INFINITY, 0, &raw);
  } else {
    created =
        xnn_create_max_pooling2d_nhwc_f32(w.top, w.right, w.bottom, w.left, w.kh, w.kw, w.sh, w.sw,
                                          w.dh, w.dw, ch, ch, ch, -INFINITY, INFINITY, 0, &raw);
  }
  const char* name = max ? "max_pooling2d_nhwc" : "average_pooling2d_nhwc";
  IG_RETURN_IF_ERROR(check(created, n, call_name("create", name, half)));
  const Operator op(raw);
  const auto batch = static_cast<size_t>(xs[0]);
  const auto h = static_cast<size_t>(xs[2]), wd = static_cast<size_t>(xs[3]);
  xnn_status set;
  if (!max) {
    set = xnn_setup_average_pooling2d_nhwc_f32(op.get(), batch, h, wd, in.f32(), y.f32(), c.pool);
  } else if (half) {
    set = xnn_setup_max_pooling2d_nhwc_f16(op.get(), batch, h, wd, in.data(), y.data(), c.pool);
  } else {
    set = xnn_setup_max_pooling2d_nhwc_f32(op.get(), batch, h, wd, in.f32(), y.f32(), c.pool);
  }
  IG_RETURN_IF_ERROR(check(set, n, call_name("setup", name, half)));
  IG_RETURN_IF_ERROR(run(c, n, op.get()));
  if (half) {
    IG_ASSIGN_OR_RETURN(y, to_float(c, n, y));
  }
  std::string layout = "NCHW->NHWC";
  if (w.padded()) layout += fmt::format(", pads t{} l{} b{} r{}", w.top, w.left, w.bottom, w.right);
  return OpResult{nhwc_to_nchw(y, out),
                  max ? note_of(name, half, layout) : note_of(name, false, f32_note(c, layout))};
}

// GlobalAveragePool: XNNPACK's global average pool over the image as one row of H*W pixels.
Expected<OpResult> run_global_avgpool(Ctx& c, const OpInputs& x) {
  IG_RETURN_IF_ERROR(require_float(x));
  IG_RETURN_IF_ERROR(require_nonempty(x));
  const Node& n = x.node;
  const Tensor& X = x.at(0);
  if (X.rank() < 3) {
    return invalid_argument("{}: input {} has no spatial dims", n.label(), X.describe());
  }
  const int64_t batch = X.dim(0), ch = X.dim(1), width = X.numel() / (batch * ch);
  const bool half = c.opt.fp16;
  IG_ASSIGN_OR_RETURN(Buffer in,
                      in_precision(c, n, nchw_to_nhwc(X.reshaped({batch, ch, 1, width})), half));
  Buffer y(static_cast<size_t>(batch * ch), half);
  const auto cs = static_cast<size_t>(ch);
  xnn_operator_t raw = nullptr;
  const xnn_status created =
      half ? xnn_create_global_average_pooling_nwc_f16(cs, cs, cs, -INFINITY, INFINITY, 0, &raw)
           : xnn_create_global_average_pooling_nwc_f32(cs, cs, cs, -INFINITY, INFINITY, 0, &raw);
  IG_RETURN_IF_ERROR(check(created, n, call_name("create", "global_average_pooling_nwc", half)));
  const Operator op(raw);
  const auto b = static_cast<size_t>(batch), wd = static_cast<size_t>(width);
  const xnn_status set =
      half ? xnn_setup_global_average_pooling_nwc_f16(op.get(), b, wd, in.data(), y.data(), c.pool)
           : xnn_setup_global_average_pooling_nwc_f32(op.get(), b, wd, in.f32(), y.f32(), c.pool);
  IG_RETURN_IF_ERROR(check(set, n, call_name("setup", "global_average_pooling_nwc", half)));
  IG_RETURN_IF_ERROR(run(c, n, op.get()));
  if (half) {
    IG_ASSIGN_OR_RETURN(y, to_float(c, n, y));
  }
  Shape out = {batch, ch};
  out.resize(static_cast<size_t>(X.rank()), 1);
  // [N,C] in NWC order is [N,C,1,...] in NCHW: the same elements.
  return OpResult{tensor_of(y, out), note_of("global_average_pooling_nwc", half, "NCHW->NHWC")};
}

}  // namespace

const std::vector<OpDef>& pool_ops() {
  static const std::vector<OpDef> kOps = {
      {"", "MaxPool", 1, kMaxOpset, run_window_pool, check_maxpool},
      {"", "AveragePool", 1, kMaxOpset, run_window_pool, check_avgpool},
      {"", "GlobalMaxPool", 1, kMaxOpset, run_window_pool},
      {"", "GlobalAveragePool", 1, kMaxOpset, run_global_avgpool},
  };
  return kOps;
}

}  // namespace ig::xnnpack

// Runs an int8 QDQ group: the integers gathered (a shared DequantizeLinear's float output is
// quantized again, exactly), u8 shifted to s8, NCHW copied to NHWC, one qs8/qc8 operator, and
// the s8 result shifted back to the QuantizeLinear's type.
#include <cmath>

#include "backends/xnnpack/xnnpack_int8.h"

namespace ig::xnnpack {

namespace {

using Quant = QdqQuant;

// Integers as XNNPACK reads them, with the slack its kernels read past the end.
using Bytes = std::vector<int8_t>;
Bytes bytes(size_t n) { return Bytes(n + XNN_EXTRA_BYTES, 0); }

// The DequantizeLinear's integers: its input when the group owns it, else its float output
// divided by the scale (along `axis` when per channel) and rounded: exact, as (q - zp) * s / s
// rounds back to q.
Expected<Tensor> integers(const Node& dq, bool owned, const Quant& q, int axis,
                          const TensorLookup& values) {
  if (owned) {
    IG_ASSIGN_OR_RETURN(const Tensor* t, qdq_value(values, dq.inputs[0]));
    return *t;
  }
  IG_ASSIGN_OR_RETURN(const Tensor* f, qdq_value(values, dq.outputs[0]));
  Tensor out(q.type, f->shape());
  int64_t inner = 1;
  for (int d = axis + 1; d < f->rank(); ++d) inner *= f->dim(d);
  const int64_t nc = q.scales.size() > 1 ? f->dim(axis) : 1;
  const bool u8 = q.type == DType::kUInt8;
  for (int64_t i = 0; i < f->numel(); ++i) {
    const float s = q.scales[nc > 1 ? (i / inner) % nc : 0];
    const double v = std::clamp(std::nearbyint(f->as_double(i) / s) + q.zp, u8 ? 0.0 : -128.0,
                                u8 ? 255.0 : 127.0);
    if (u8)
      out.data<uint8_t>()[i] = static_cast<uint8_t>(v);
    else
      out.data<int8_t>()[i] = static_cast<int8_t>(v);
  }
  return out;
}

// s8 value of element i: u8 shifted by -128.
int8_t s8_at(const Tensor& t, int64_t i) {
  return t.dtype() == DType::kUInt8 ? static_cast<int8_t>(int(t.data<uint8_t>()[i]) - 128)
                                    : t.data<int8_t>()[i];
}

// Everything the operator is created with.
struct Int8Op {
  int8_t x_zp = 0, y_zp = 0, y_min = -128, y_max = 127;
  float x_scale = 1, y_scale = 1;
  std::vector<float> w_scales;
  std::vector<int32_t> bias;  // empty: none
  bool x_u8 = false, y_u8 = false;
};

// The output's s8 NHWC / row-major bytes as the QuantizeLinear's tensor of `shape` (NCHW when
// `nhwc`).
Tensor output_of(const Bytes& y, const Shape& shape, bool nhwc, bool u8) {
  Tensor out(u8 ? DType::kUInt8 : DType::kInt8, shape);
  const int64_t c = shape[1];
  int64_t hw = 1;
  for (size_t d = 2; d < shape.size(); ++d) hw *= shape[d];
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t src = i;
    if (nhwc) {
      const int64_t b = i / (c * hw), ch = (i / hw) % c, p = i % hw;
      src = (b * hw + p) * c + ch;
    }
    if (u8)
      out.data<uint8_t>()[i] = static_cast<uint8_t>(int(y[src]) + 128);
    else
      out.data<int8_t>()[i] = y[src];
  }
  return out;
}

std::string note_for(const char* op, const Int8Op& p, const std::string& layout) {
  std::string d = layout;
  if (p.x_u8) d += std::string(d.empty() ? "" : "; ") + "u8 input shifted to s8";
  if (p.y_u8) d += std::string(d.empty() ? "" : "; ") + "s8 output shifted to u8";
  return fmt::format("xnn:{}{}", op, d.empty() ? "" : " (" + d + ")");
}

// A qs8 (one weight scale) or qc8 (per channel) convolution over [batch, h, w, ic] -> oc.
Expected<Bytes> convolve(Ctx& c, const Node& n, const Int8Op& p, const Window2d& w, uint32_t group,
                         size_t icpg, size_t ocpg, size_t batch, size_t h, size_t wd,
                         const Bytes& in, const Bytes& kernel, size_t out_pixels,
                         const char** name) {
  const size_t cin = group * icpg, cout = group * ocpg;
  const int32_t* bias = p.bias.empty() ? nullptr : p.bias.data();
  const bool qc8 = p.w_scales.size() > 1;
  *name = qc8 ? "convolution2d_nhwc_qc8" : "convolution2d_nhwc_qs8";
  xnn_operator_t raw = nullptr;
  const xnn_status created =
      qc8 ? xnn_create_convolution2d_nhwc_qc8(w.top, w.right, w.bottom, w.left, w.kh, w.kw, w.sh,
                                              w.sw, w.dh, w.dw, group, icpg, ocpg, cin, cout,
                                              p.x_zp, p.x_scale, p.w_scales.data(), kernel.data(),
                                              bias, p.y_zp, p.y_scale, p.y_min, p.y_max, 0, &raw)
          : xnn_create_convolution2d_nhwc_qs8(w.top, w.right, w.bottom, w.left, w.kh, w.kw, w.sh,
                                              w.sw, w.dh, w.dw, group, icpg, ocpg, cin, cout,
                                              p.x_zp, p.x_scale, p.w_scales[0], kernel.data(), bias,
                                              p.y_zp, p.y_scale, p.y_min, p.y_max, 0, &raw);
  IG_RETURN_IF_ERROR(check(created, n, fmt::format("xnn_create_{}", *name)));
  const Operator op(raw);
  Bytes y = bytes(out_pixels * cout);
  const xnn_status set =
      qc8 ? xnn_setup_convolution2d_nhwc_qc8(op.get(), batch, h, wd, in.data(), y.data(), c.pool)
          : xnn_setup_convolution2d_nhwc_qs8(op.get(), batch, h, wd, in.data(), y.data(), c.pool);
  IG_RETURN_IF_ERROR(check(set, n, fmt::format("xnn_setup_{}", *name)));
  IG_RETURN_IF_ERROR(run(c, n, op.get()));
  return y;
}

Expected<OpResult> int8_conv(Ctx& c, const Node& n, const Tensor& X, const Tensor& W,
                             const Int8Op& p) {
  if ((X.rank() != 3 && X.rank() != 4) || W.rank() != X.rank())
    return unsupported("{}: XNNPACK convolves 2-D (and here 1-D) images (input {}, weights {})",
                       n.label(), X.describe(), W.describe());
  const Shape xs = as_image(X.shape()), ws = as_image(W.shape());
  const int64_t group = n.attr_int("group", 1), m = ws[0];
  if (group < 1 || m % group != 0 || xs[1] != ws[1] * group)
    return invalid_argument("{}: channels {} / weights {} / group {} do not match", n.label(),
                            xs[1], W.describe(), group);
  IG_ASSIGN_OR_RETURN(
      Window2d w, window_2d(n, Shape(X.shape().begin() + 2, X.shape().end()),
                            std::vector<int64_t>(W.shape().begin() + 2, W.shape().end()), false));
  // NCHW -> NHWC and OIHW -> OHWI, u8 shifted to s8.
  const int64_t ci = xs[1], hw = xs[2] * xs[3], wci = ws[1], khw = ws[2] * ws[3];
  Bytes in = bytes(static_cast<size_t>(X.numel()));
  for (int64_t b = 0; b < xs[0]; ++b) {
    for (int64_t ch = 0; ch < ci; ++ch) {
      for (int64_t q = 0; q < hw; ++q)
        in[(b * hw + q) * ci + ch] = s8_at(X, (b * ci + ch) * hw + q);
    }
  }
  Bytes kernel = bytes(static_cast<size_t>(W.numel()));
  for (int64_t o = 0; o < m; ++o) {
    for (int64_t i = 0; i < wci; ++i) {
      for (int64_t q = 0; q < khw; ++q)
        kernel[(o * khw + q) * wci + i] = W.data<int8_t>()[(o * wci + i) * khw + q];
    }
  }
  const char* name = "";
  IG_ASSIGN_OR_RETURN(Bytes y,
                      convolve(c, n, p, w, static_cast<uint32_t>(group), static_cast<size_t>(wci),
                               static_cast<size_t>(m / group), static_cast<size_t>(xs[0]),
                               static_cast<size_t>(xs[2]), static_cast<size_t>(xs[3]), in, kernel,
                               static_cast<size_t>(xs[0] * w.oh * w.ow), &name));
  Shape out = {xs[0], m, w.oh, w.ow};
  if (X.rank() == 3) out = {xs[0], m, w.ow};
  std::string layout = "NCHW->NHWC";
  if (group > 1) layout += fmt::format(", groups={}", group);
  return OpResult{output_of(y, out, true, p.y_u8), note_for(name, p, layout)};
}

// Gemm / MatMul: fully_connected_nc_qs8 with one weight scale; per-channel scales as a 1x1 qc8
// convolution over M pixels (this snapshot has no qc8 fully connected operator).
Expected<OpResult> int8_fc(Ctx& c, const Node& n, const Tensor& X, const Tensor& W,
                           const Int8Op& p) {
  const bool tb = n.op_type == "Gemm" && n.attr_int("transB", 0) != 0;
  if (X.rank() < 2 || W.rank() != 2 || (n.op_type == "Gemm" && X.rank() != 2))
    return unsupported("{}: int8 {} of {} by {} is not mapped", n.label(), n.op_type, X.describe(),
                       W.describe());
  const int64_t K = X.dim(-1), N = tb ? W.dim(0) : W.dim(1);
  if ((tb ? W.dim(1) : W.dim(0)) != K)
    return invalid_argument("{}: {} and {} do not multiply", n.label(), X.describe(), W.describe());
  const int64_t M = X.numel() / K;
  Bytes a = bytes(static_cast<size_t>(X.numel()));
  for (int64_t i = 0; i < X.numel(); ++i) a[i] = s8_at(X, i);
  Bytes kernel = bytes(static_cast<size_t>(W.numel()));  // [N, K]
  for (int64_t o = 0; o < N; ++o) {
    for (int64_t k = 0; k < K; ++k)
      kernel[o * K + k] = W.data<int8_t>()[tb ? o * K + k : k * N + o];
  }
  Shape out = X.shape();
  out.back() = N;
  const char* name = "fully_connected_nc_qs8";
  Bytes y;
  if (p.w_scales.size() > 1) {
    IG_ASSIGN_OR_RETURN(
        y, convolve(c, n, p, Window2d{}, 1, static_cast<size_t>(K), static_cast<size_t>(N),
                    static_cast<size_t>(M), 1, 1, a, kernel, static_cast<size_t>(M), &name));
    return OpResult{output_of(y, out, false, p.y_u8),
                    note_for(name, p, "1x1, per-channel weights")};
  }
  const int32_t* bias = p.bias.empty() ? nullptr : p.bias.data();
  const auto k = static_cast<size_t>(K), nn = static_cast<size_t>(N);
  xnn_operator_t raw = nullptr;
  IG_RETURN_IF_ERROR(check(xnn_create_fully_connected_nc_qs8(
                               k, nn, k, nn, p.x_zp, p.x_scale, p.w_scales[0], kernel.data(), bias,
                               p.y_zp, p.y_scale, p.y_min, p.y_max, 0, &raw),
                           n, "xnn_create_fully_connected_nc_qs8"));
  const Operator op(raw);
  y = bytes(static_cast<size_t>(M * N));
  IG_RETURN_IF_ERROR(check(xnn_setup_fully_connected_nc_qs8(op.get(), static_cast<size_t>(M),
                                                            a.data(), y.data(), c.pool),
                           n, "xnn_setup_fully_connected_nc_qs8"));
  IG_RETURN_IF_ERROR(run(c, n, op.get()));
  return OpResult{output_of(y, out, false, p.y_u8), note_for(name, p, "")};
}

}  // namespace

Expected<OpResult> run_int8_group(Ctx& c, const Model& model, const QdqGroup& grp,
                                  const TensorLookup& values) {
  IG_RETURN_IF_ERROR(check_int8_group(model, grp, values));
  const Graph& g = model.graph;
  IG_ASSIGN_OR_RETURN(QdqGroupOperands o, qdq_group_operands(model, grp, values));
  const Node& h = o.head;
  const Node& dx = o.dx;
  const Node& dw = o.dw;
  const Quant& xq = o.x;
  Quant& wq = o.w;
  IG_ASSIGN_OR_RETURN(Quant yq, qdq_quant_of(g.nodes[*grp.q], values));
  const int w_axis = o.w_axis;
  IG_ASSIGN_OR_RETURN(Tensor X, integers(dx, grp.x.owned, xq, 0, values));
  wq.type = DType::kInt8;
  IG_ASSIGN_OR_RETURN(Tensor W, integers(dw, grp.w.owned, wq, w_axis, values));
  if (!qdq_int8_type(X.dtype()) || W.dtype() != DType::kInt8 || W.rank() < 2)
    return unsupported("{}: int8 operands {} and {} are not mapped", h.label(), X.describe(),
                       W.describe());
  const int64_t oc = W.dim(w_axis);
  if (wq.scales.size() != 1 && static_cast<int64_t>(wq.scales.size()) != oc)
    return invalid_argument("{}: {} weight scales for {} channels", dw.label(), wq.scales.size(),
                            oc);
  Int8Op p;
  p.x_u8 = X.dtype() == DType::kUInt8;
  p.y_u8 = yq.type == DType::kUInt8;
  p.x_zp = static_cast<int8_t>(xq.zp - (p.x_u8 ? 128 : 0));
  p.y_zp = static_cast<int8_t>(yq.zp - (p.y_u8 ? 128 : 0));
  p.y_min = grp.act ? p.y_zp : int8_t{-128};
  p.x_scale = xq.scales[0];
  p.y_scale = yq.scales[0];
  p.w_scales = wq.scales;
  if (grp.b) {
    const Node& db = g.nodes[grp.b->node];
    IG_ASSIGN_OR_RETURN(Quant bq, qdq_quant_of(db, values));
    bq.type = DType::kInt32;
    IG_ASSIGN_OR_RETURN(const Tensor* b,
                        qdq_value(values, grp.b->owned ? db.inputs[0] : db.outputs[0]));
    if (b->numel() != oc)
      return unsupported("{}: bias {} does not hold one value per output channel ({})", h.label(),
                         b->describe(), oc);
    for (int64_t k = 0; k < oc; ++k) {
      // A shared DequantizeLinear's float is (q * s) rounded once: q comes back exactly.
      const double v = b->as_double(k);
      const float s = bq.scales[bq.scales.size() == 1 ? 0 : k];
      p.bias.push_back(static_cast<int32_t>(grp.b->owned ? v : std::nearbyint(v / s)));
    }
  }
  return h.op_type == "Conv" ? int8_conv(c, h, X, W, p) : int8_fc(c, h, X, W, p);
}

}  // namespace ig::xnnpack

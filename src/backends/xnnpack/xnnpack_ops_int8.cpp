// XNNPACK's 8-bit operators for the nodes of ONNX Runtime's QOperator format that are not an int8
// group (those: qoperator_group.h): MaxPool on u8/s8 integers (max_pooling2d_nhwc_u8/_s8, exact),
// com.microsoft's QLinearAdd (add_nd_qu8/_qs8, XNNPACK's own fixed-point rescale, broadcasting)
// and QLinearGlobalAveragePool (global_average_pooling_nwc_qu8/_qs8). Integers are copied NCHW ->
// NHWC where the operator wants pixels, and back.
#include "backends/xnnpack/xnnpack_ops_int8.h"

#include <cmath>

#include "tensor/broadcast.h"

namespace ig::xnnpack {

namespace {

// 8-bit elements as XNNPACK reads them: with XNN_EXTRA_BYTES of slack, NHWC when `nhwc` (the
// tensor [N,C,spatial...] read as N x pixels x C).
std::vector<uint8_t> bytes_of(const Tensor& t, bool nhwc) {
  std::vector<uint8_t> out(static_cast<size_t>(t.numel()) + XNN_EXTRA_BYTES, 0);
  const auto* in = reinterpret_cast<const uint8_t*>(t.raw());
  if (!nhwc || t.rank() < 3) {
    std::copy(in, in + t.numel(), out.begin());
    return out;
  }
  const int64_t n = t.dim(0), c = t.dim(1), hw = t.numel() / (n * c);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) out[(b * hw + p) * c + ch] = in[(b * c + ch) * hw + p];
  return out;
}

// NHWC (when `nhwc`) 8-bit elements as a tensor of `type` and NCHW `shape`.
Tensor tensor_of_bytes(const std::vector<uint8_t>& y, DType type, const Shape& shape, bool nhwc) {
  Tensor out(type, shape);
  auto* o = reinterpret_cast<uint8_t*>(out.raw());
  if (!nhwc || shape.size() < 3) {
    std::copy(y.begin(), y.begin() + out.numel(), o);
    return out;
  }
  const int64_t n = shape[0], c = shape[1], hw = out.numel() / (n * c);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) o[(b * c + ch) * hw + p] = y[(b * hw + p) * c + ch];
  return out;
}

bool is_8bit(DType t) { return t == DType::kUInt8 || t == DType::kInt8; }

Status require_8bit(const OpInputs& x, size_t i) {
  if (!is_8bit(x.at(i).dtype()))
    return unsupported("{}: input '{}' is {}; XNNPACK's 8-bit operators take u8 or s8",
                       x.node.label(), x.node.inputs[i], x.at(i).describe());
  return Status::Ok();
}

// Scale input `s` (a float scalar) and zero point input `z` (of the data's type; 0 without one).
struct Quant {
  float scale = 1;
  int32_t zp = 0;
};
Expected<Quant> quant_at(const OpInputs& x, size_t s, size_t z, DType type) {
  const Node& n = x.node;
  if (!x.has(s) || x.at(s).numel() != 1 || x.at(s).dtype() != DType::kFloat32)
    return unsupported(
        "{}: scale '{}' is not one float; XNNPACK's operators take per-tensor "
        "scales",
        n.label(), s < n.inputs.size() ? n.inputs[s] : "");
  Quant q{static_cast<float>(x.at(s).as_double(0)), 0};
  if (!(q.scale > 0) || !std::isfinite(q.scale))
    return invalid_argument("{}: scale '{}' is {}", n.label(), n.inputs[s], q.scale);
  if (x.has(z)) {
    if (x.at(z).numel() != 1 || x.at(z).dtype() != type)
      return unsupported("{}: zero point '{}' is {}, not one {}", n.label(), n.inputs[z],
                         x.at(z).describe(), dtype_name(type));
    q.zp = static_cast<int32_t>(x.at(z).as_int64(0));
  }
  return q;
}

std::string op_name(const char* name, bool u8) {
  return std::string(name) + (u8 ? "_qu8" : "_qs8");
}

Expected<OpResult> run_qlinear_add(Ctx& c, const OpInputs& x) {
  const Node& n = x.node;
  IG_RETURN_IF_ERROR(require_8bit(x, 0));
  IG_RETURN_IF_ERROR(require_8bit(x, 3));
  const Tensor& A = x.at(0);
  const Tensor& B = x.at(3);
  const DType t = A.dtype();
  if (B.dtype() != t)
    return unsupported("{}: A {} and B {} differ in type", n.label(), A.describe(), B.describe());
  IG_ASSIGN_OR_RETURN(Quant a, quant_at(x, 1, 2, t));
  IG_ASSIGN_OR_RETURN(Quant b, quant_at(x, 4, 5, t));
  IG_ASSIGN_OR_RETURN(Quant y, quant_at(x, 6, 7, t));
  auto shape = broadcast_shapes({A.shape(), B.shape()});
  if (!shape.ok()) return invalid_argument("{}: {}", n.label(), shape.status().message());
  const Shape out = *shape;
  if (A.rank() > XNN_MAX_TENSOR_DIMS || B.rank() > XNN_MAX_TENSOR_DIMS)
    return unsupported("{}: more than {} dims", n.label(), XNN_MAX_TENSOR_DIMS);
  const bool u8 = t == DType::kUInt8;
  xnn_operator_t raw = nullptr;
  const xnn_status created =
      u8 ? xnn_create_add_nd_qu8(uint8_t(a.zp), a.scale, uint8_t(b.zp), b.scale, uint8_t(y.zp),
                                 y.scale, 0, 255, 0, &raw)
         : xnn_create_add_nd_qs8(int8_t(a.zp), a.scale, int8_t(b.zp), b.scale, int8_t(y.zp),
                                 y.scale, -128, 127, 0, &raw);
  IG_RETURN_IF_ERROR(check(created, n, "xnn_create_" + op_name("add_nd", u8)));
  const Operator op(raw);
  const std::vector<uint8_t> ia = bytes_of(A, false), ib = bytes_of(B, false);
  int64_t count = 1;
  for (int64_t d : out) count *= d;
  std::vector<uint8_t> yb(static_cast<size_t>(count) + XNN_EXTRA_BYTES);
  std::vector<size_t> sa(A.shape().begin(), A.shape().end()),
      sb(B.shape().begin(), B.shape().end());
  const xnn_status set =
      u8 ? xnn_setup_add_nd_qu8(op.get(), sa.size(), sa.data(), sb.size(), sb.data(), ia.data(),
                                ib.data(), yb.data(), c.pool)
         : xnn_setup_add_nd_qs8(op.get(), sa.size(), sa.data(), sb.size(), sb.data(),
                                reinterpret_cast<const int8_t*>(ia.data()),
                                reinterpret_cast<const int8_t*>(ib.data()),
                                reinterpret_cast<int8_t*>(yb.data()), c.pool);
  IG_RETURN_IF_ERROR(check(set, n, "xnn_setup_" + op_name("add_nd", u8)));
  IG_RETURN_IF_ERROR(run(c, n, op.get()));
  return OpResult{tensor_of_bytes(yb, t, out, false), "xnn:" + op_name("add_nd", u8)};
}

Expected<OpResult> run_qlinear_global_avgpool(Ctx& c, const OpInputs& x) {
  const Node& n = x.node;
  IG_RETURN_IF_ERROR(require_8bit(x, 0));
  const Tensor& X = x.at(0);
  if (n.attr_int("channels_last", 0) != 0)
    return unsupported("{}: channels_last=1 is not mapped", n.label());
  if (X.rank() < 3 || X.numel() == 0)
    return invalid_argument("{}: input {} has no pixels", n.label(), X.describe());
  const DType t = X.dtype();
  IG_ASSIGN_OR_RETURN(Quant in, quant_at(x, 1, 2, t));
  IG_ASSIGN_OR_RETURN(Quant y, quant_at(x, 3, 4, t));
  const bool u8 = t == DType::kUInt8;
  const auto ch = static_cast<size_t>(X.dim(1));
  xnn_operator_t raw = nullptr;
  const xnn_status created =
      u8 ? xnn_create_global_average_pooling_nwc_qu8(ch, ch, ch, uint8_t(in.zp), in.scale,
                                                     uint8_t(y.zp), y.scale, 0, 255, 0, &raw)
         : xnn_create_global_average_pooling_nwc_qs8(ch, ch, ch, int8_t(in.zp), in.scale,
                                                     int8_t(y.zp), y.scale, -128, 127, 0, &raw);
  const std::string name = op_name("global_average_pooling_nwc", u8);
  IG_RETURN_IF_ERROR(check(created, n, "xnn_create_" + name));
  const Operator op(raw);
  const std::vector<uint8_t> in_bytes = bytes_of(X, true);
  std::vector<uint8_t> yb(static_cast<size_t>(X.dim(0)) * ch + XNN_EXTRA_BYTES);
  const auto batch = static_cast<size_t>(X.dim(0));
  const auto width = static_cast<size_t>(X.numel() / (X.dim(0) * X.dim(1)));
  const xnn_status set =
      u8 ? xnn_setup_global_average_pooling_nwc_qu8(op.get(), batch, width, in_bytes.data(),
                                                    yb.data(), c.pool)
         : xnn_setup_global_average_pooling_nwc_qs8(
               op.get(), batch, width, reinterpret_cast<const int8_t*>(in_bytes.data()),
               reinterpret_cast<int8_t*>(yb.data()), c.pool);
  IG_RETURN_IF_ERROR(check(set, n, "xnn_setup_" + name));
  IG_RETURN_IF_ERROR(run(c, n, op.get()));
  Shape out = {X.dim(0), X.dim(1)};
  out.resize(static_cast<size_t>(X.rank()), 1);
  // [N,C] in NWC order is [N,C,1,...] in NCHW: the same elements.
  return OpResult{tensor_of_bytes(yb, t, out, false), "xnn:" + name + " (NCHW->NHWC)"};
}

}  // namespace

Expected<OpResult> run_int8_max_pool(Ctx& c, const OpInputs& x, const Window2d& w,
                                     const Shape& out) {
  const Node& n = x.node;
  const Tensor& X = x.at(0);
  const bool u8 = X.dtype() == DType::kUInt8;
  const auto ch = static_cast<size_t>(X.dim(1));
  xnn_operator_t raw = nullptr;
  const xnn_status created =
      u8 ? xnn_create_max_pooling2d_nhwc_u8(w.top, w.right, w.bottom, w.left, w.kh, w.kw, w.sh,
                                            w.sw, w.dh, w.dw, ch, ch, ch, 0, 255, 0, &raw)
         : xnn_create_max_pooling2d_nhwc_s8(w.top, w.right, w.bottom, w.left, w.kh, w.kw, w.sh,
                                            w.sw, w.dh, w.dw, ch, ch, ch, -128, 127, 0, &raw);
  const std::string name = std::string("max_pooling2d_nhwc") + (u8 ? "_u8" : "_s8");
  IG_RETURN_IF_ERROR(check(created, n, "xnn_create_" + name));
  const Operator op(raw);
  const std::vector<uint8_t> in = bytes_of(X, true);
  int64_t count = 1;
  for (int64_t d : out) count *= d;
  std::vector<uint8_t> yb(static_cast<size_t>(count) + XNN_EXTRA_BYTES);
  const auto batch = static_cast<size_t>(X.dim(0));
  const auto h = static_cast<size_t>(X.rank() == 4 ? X.dim(2) : 1);
  const auto wd = static_cast<size_t>(X.dim(-1));
  const xnn_status set =
      u8 ? xnn_setup_max_pooling2d_nhwc_u8(op.get(), batch, h, wd, in.data(), yb.data(), c.pool)
         : xnn_setup_max_pooling2d_nhwc_s8(op.get(), batch, h, wd,
                                           reinterpret_cast<const int8_t*>(in.data()),
                                           reinterpret_cast<int8_t*>(yb.data()), c.pool);
  IG_RETURN_IF_ERROR(check(set, n, "xnn_setup_" + name));
  IG_RETURN_IF_ERROR(run(c, n, op.get()));
  std::string layout = "NCHW->NHWC";
  if (w.padded()) layout += fmt::format(", pads t{} l{} b{} r{}", w.top, w.left, w.bottom, w.right);
  return OpResult{tensor_of_bytes(yb, X.dtype(), out, true), "xnn:" + name + " (" + layout + ")"};
}

const std::vector<OpDef>& int8_ops() {
  static const std::vector<OpDef> kOps = {
      {"com.microsoft", "QLinearAdd", 1, kMaxOpset, run_qlinear_add},
      {"com.microsoft", "QLinearGlobalAveragePool", 1, kMaxOpset, run_qlinear_global_avgpool},
  };
  return kOps;
}

}  // namespace ig::xnnpack

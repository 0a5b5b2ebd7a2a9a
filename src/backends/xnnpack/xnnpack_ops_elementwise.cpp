// Elementwise operators: binary ones as XNNPACK's *_nd operators (numpy broadcasting of either
// operand, up to XNN_MAX_TENSOR_DIMS dims), unary ones as its *_nc operators over the tensor as
// one row, Softmax as softmax_nc over the last axis, PRelu as prelu_nc over the channel axis.
#include <algorithm>
#include <functional>

#include "backends/xnnpack/xnnpack_ops.h"

namespace ig::xnnpack {

namespace {

// ---- Binary ----
Status check_binary(const Node& n, const Model&) {
  if (n.inputs.size() != 2) {
    return unsupported("{}: {} of {} inputs; XNNPACK's binary operators take two", n.label(),
                       n.op_type, n.inputs.size());
  }
  return Status::Ok();
}

using CreateBinary = std::function<xnn_status(xnn_operator_t*)>;
using SetupBinary = xnn_status (*)(xnn_operator_t, size_t, const size_t*, size_t, const size_t*,
                                   const float*, const float*, float*, pthreadpool_t);
using SetupBinary16 = xnn_status (*)(xnn_operator_t, size_t, const size_t*, size_t, const size_t*,
                                     const void*, const void*, void*, pthreadpool_t);
struct Binary {
  const char* name;
  CreateBinary create;
  SetupBinary setup;
  CreateBinary create16;  // empty: no f16 operator in this XNNPACK
  SetupBinary16 setup16 = nullptr;
};

Binary binary_of(const std::string& op) {
  constexpr float kLo = -INFINITY, kHi = INFINITY;
  if (op == "Add") {
    return {"add_nd", [=](xnn_operator_t* o) { return xnn_create_add_nd_f32(kLo, kHi, 0, o); },
            xnn_setup_add_nd_f32,
            [=](xnn_operator_t* o) { return xnn_create_add_nd_f16(kLo, kHi, 0, o); },
            xnn_setup_add_nd_f16};
  }
  if (op == "Mul") {
    return {"multiply_nd",
            [=](xnn_operator_t* o) { return xnn_create_multiply_nd_f32(kLo, kHi, 0, o); },
            xnn_setup_multiply_nd_f32,
            [=](xnn_operator_t* o) { return xnn_create_multiply_nd_f16(kLo, kHi, 0, o); },
            xnn_setup_multiply_nd_f16};
  }
  if (op == "Sub") {
    return {"subtract_nd",
            [=](xnn_operator_t* o) { return xnn_create_subtract_nd_f32(kLo, kHi, 0, o); },
            xnn_setup_subtract_nd_f32,
            {}};
  }
  if (op == "Div") {
    return {"divide_nd",
            [=](xnn_operator_t* o) { return xnn_create_divide_nd_f32(kLo, kHi, 0, o); },
            xnn_setup_divide_nd_f32,
            {}};
  }
  if (op == "Max") {
    return {"maximum_nd",
            [](xnn_operator_t* o) { return xnn_create_maximum_nd_f32(0, o); },
            xnn_setup_maximum_nd_f32,
            {}};
  }
  return {"minimum_nd",
          [](xnn_operator_t* o) { return xnn_create_minimum_nd_f32(0, o); },
          xnn_setup_minimum_nd_f32,
          {}};
}

std::vector<size_t> dims_of(const Shape& s) {
  if (s.empty()) return {1};  // a scalar as one element
  return std::vector<size_t>(s.begin(), s.end());
}

std::string f32_note(const Ctx& c) {
  return c.opt.fp16 ? "fp32: no f16 operator for it in this XNNPACK" : "";
}

Expected<OpResult> run_binary(Ctx& c, const OpInputs& x) {
  IG_RETURN_IF_ERROR(require_float(x));
  IG_RETURN_IF_ERROR(require_nonempty(x));
  const Node& n = x.node;
  const Tensor& A = x.at(0);
  const Tensor& B = x.at(1);
  const size_t rank = std::max(A.shape().size(), B.shape().size());
  if (rank > XNN_MAX_TENSOR_DIMS) {
    return unsupported("{}: {} {} {}: XNNPACK's binary operators take at most {} dims", n.label(),
                       A.describe(), n.op_type, B.describe(), XNN_MAX_TENSOR_DIMS);
  }
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    auto dim = [&](const Shape& s) {
      return i + s.size() < rank ? int64_t{1} : s[i + s.size() - rank];
    };
    const int64_t a = dim(A.shape()), b = dim(B.shape());
    if (a != b && a != 1 && b != 1) {
      return invalid_argument("{}: {} and {} do not broadcast", n.label(), A.describe(),
                              B.describe());
    }
    out[i] = std::max(a, b);
  }
  const Binary op = binary_of(n.op_type);
  const bool half = c.opt.fp16 && op.create16;
  IG_ASSIGN_OR_RETURN(Buffer a, in_precision(c, n, copy_of(A), half));
  IG_ASSIGN_OR_RETURN(Buffer b, in_precision(c, n, copy_of(B), half));
  Buffer y(static_cast<size_t>(shape_numel(out)), half);
  xnn_operator_t raw = nullptr;
  IG_RETURN_IF_ERROR(
      check(half ? op.create16(&raw) : op.create(&raw), n, call_name("create", op.name, half)));
  const Operator handle(raw);
  const std::vector<size_t> da = dims_of(A.shape()), db = dims_of(B.shape());
  const xnn_status set = half ? op.setup16(handle.get(), da.size(), da.data(), db.size(), db.data(),
                                           a.data(), b.data(), y.data(), c.pool)
                              : op.setup(handle.get(), da.size(), da.data(), db.size(), db.data(),
                                         a.f32(), b.f32(), y.f32(), c.pool);
  IG_RETURN_IF_ERROR(check(set, n, call_name("setup", op.name, half)));
  IG_RETURN_IF_ERROR(run(c, n, handle.get()));
  if (half) {
    IG_ASSIGN_OR_RETURN(y, to_float(c, n, y));
  }
  return OpResult{tensor_of(y, out), note_of(op.name, half, half ? "" : f32_note(c))};
}

// ---- Unary: the tensor as one row of numel channels ----
using CreateUnary = std::function<xnn_status(size_t channels, xnn_operator_t*)>;
using SetupUnary = xnn_status (*)(xnn_operator_t, size_t, const float*, float*, pthreadpool_t);
using SetupUnary16 = xnn_status (*)(xnn_operator_t, size_t, const void*, void*, pthreadpool_t);
struct Unary {
  const char* name = "";
  CreateUnary create;
  SetupUnary setup = nullptr;
  CreateUnary create16;  // empty: no f16 operator in this XNNPACK
  SetupUnary16 setup16 = nullptr;
};

Unary clamp(float lo, float hi) {
  return {"clamp_nc",
          [=](size_t ch, xnn_operator_t* o) {
            return xnn_create_clamp_nc_f32(ch, ch, ch, lo, hi, 0, o);
          },
          xnn_setup_clamp_nc_f32,
          [=](size_t ch, xnn_operator_t* o) {
            return xnn_create_clamp_nc_f16(ch, ch, ch, lo, hi, 0, o);
          },
          xnn_setup_clamp_nc_f16};
}

// An operator without parameters: xnn_create_NAME_nc_f32(channels, strides, flags, out).
Unary plain(const char* name,
            xnn_status (*create)(size_t, size_t, size_t, uint32_t, xnn_operator_t*),
            SetupUnary setup) {
  return {name, [=](size_t ch, xnn_operator_t* o) { return create(ch, ch, ch, 0, o); }, setup, {}};
}

// Clip's bound: its attribute (opset < 11) or its input (11+), which arrives as a tensor.
Expected<float> clip_bound(const OpInputs& x, size_t input, const char* attr, float fallback) {
  if (x.opset < 11) return x.node.attr_float(attr, fallback);
  if (!x.has(input)) return fallback;
  const Tensor& t = x.at(input);
  if (t.numel() != 1) {
    return invalid_argument("{}: Clip's {} is {}, not a scalar", x.node.label(), attr,
                            t.describe());
  }
  return t.data<float>()[0];
}

Expected<Unary> unary_of(const OpInputs& x) {
  const Node& n = x.node;
  const std::string& op = n.op_type;
  if (op == "Relu") return clamp(0.0f, INFINITY);
  if (op == "Clip") {
    IG_ASSIGN_OR_RETURN(const float lo, clip_bound(x, 1, "min", -INFINITY));
    IG_ASSIGN_OR_RETURN(const float hi, clip_bound(x, 2, "max", INFINITY));
    if (!(lo < hi)) {
      return unsupported("{}: Clip with min {} not below max {}: XNNPACK's clamp refuses it",
                         n.label(), lo, hi);
    }
    return clamp(lo, hi);
  }
  if (op == "LeakyRelu") {
    const float alpha = n.attr_float("alpha", 0.01f);
    return Unary{"leaky_relu_nc",
                 [=](size_t ch, xnn_operator_t* o) {
                   return xnn_create_leaky_relu_nc_f32(ch, ch, ch, alpha, 0, o);
                 },
                 xnn_setup_leaky_relu_nc_f32,
                 [=](size_t ch, xnn_operator_t* o) {
                   return xnn_create_leaky_relu_nc_f16(ch, ch, ch, alpha, 0, o);
                 },
                 xnn_setup_leaky_relu_nc_f16};
  }
  if (op == "Elu") {
    const float alpha = n.attr_float("alpha", 1.0f);
    return Unary{"elu_nc",
                 [=](size_t ch, xnn_operator_t* o) {
                   return xnn_create_elu_nc_f32(ch, ch, ch, alpha, 0, o);
                 },
                 xnn_setup_elu_nc_f32,
                 {}};
  }
  if (op == "HardSwish") {
    Unary u = plain("hardswish_nc", xnn_create_hardswish_nc_f32, xnn_setup_hardswish_nc_f32);
    u.create16 = [](size_t ch, xnn_operator_t* o) {
      return xnn_create_hardswish_nc_f16(ch, ch, ch, 0, o);
    };
    u.setup16 = xnn_setup_hardswish_nc_f16;
    return u;
  }
  if (op == "Sigmoid")
    return plain("sigmoid_nc", xnn_create_sigmoid_nc_f32, xnn_setup_sigmoid_nc_f32);
  if (op == "Abs") return plain("abs_nc", xnn_create_abs_nc_f32, xnn_setup_abs_nc_f32);
  if (op == "Neg") return plain("negate_nc", xnn_create_negate_nc_f32, xnn_setup_negate_nc_f32);
  if (op == "Sqrt") {
    return plain("square_root_nc", xnn_create_square_root_nc_f32, xnn_setup_square_root_nc_f32);
  }
  if (op == "Floor") return plain("floor_nc", xnn_create_floor_nc_f32, xnn_setup_floor_nc_f32);
  if (op == "Ceil") return plain("ceiling_nc", xnn_create_ceiling_nc_f32, xnn_setup_ceiling_nc_f32);
  if (op == "Round") {
    // ONNX rounds half to even: XNNPACK's bankers' rounding.
    return plain("bankers_rounding_nc", xnn_create_bankers_rounding_nc_f32,
                 xnn_setup_bankers_rounding_nc_f32);
  }
  return internal_error("{}: {} is not a unary XNNPACK operator", n.label(), op);
}

// `rows` rows of `channels` elements through one unary operator.
Expected<Buffer> run_rows(Ctx& c, const Node& node, const Unary& u, Buffer in, size_t rows,
                          size_t channels, bool half) {
  IG_ASSIGN_OR_RETURN(in, in_precision(c, node, std::move(in), half));
  Buffer y(in.size(), half);
  xnn_operator_t raw = nullptr;
  IG_RETURN_IF_ERROR(check(half ? u.create16(channels, &raw) : u.create(channels, &raw), node,
                           call_name("create", u.name, half)));
  const Operator op(raw);
  const xnn_status set = half ? u.setup16(op.get(), rows, in.data(), y.data(), c.pool)
                              : u.setup(op.get(), rows, in.f32(), y.f32(), c.pool);
  IG_RETURN_IF_ERROR(check(set, node, call_name("setup", u.name, half)));
  IG_RETURN_IF_ERROR(run(c, node, op.get()));
  if (!half) return y;
  return to_float(c, node, y);
}

Expected<OpResult> run_unary(Ctx& c, const OpInputs& x) {
  const Node& n = x.node;
  if (!x.has(0) || x.at(0).dtype() != DType::kFloat32) {
    return unsupported("{}: the XNNPACK backend maps fp32 only", n.label());
  }
  const Tensor& X = x.at(0);
  if (X.numel() == 0) return unsupported("{}: empty input {}", n.label(), X.describe());
  IG_ASSIGN_OR_RETURN(const Unary u, unary_of(x));
  const bool half = c.opt.fp16 && u.create16;
  IG_ASSIGN_OR_RETURN(Buffer y,
                      run_rows(c, n, u, copy_of(X), 1, static_cast<size_t>(X.numel()), half));
  return OpResult{tensor_of(y, X.shape()), note_of(u.name, half, half ? "" : f32_note(c))};
}

// ---- Softmax: rows of the last axis (opset < 13: the input coerced to 2-D at `axis`) ----
Expected<OpResult> run_softmax(Ctx& c, const OpInputs& x) {
  IG_RETURN_IF_ERROR(require_float(x));
  IG_RETURN_IF_ERROR(require_nonempty(x));
  const Node& n = x.node;
  const Tensor& X = x.at(0);
  const int64_t rank = std::max(X.rank(), 1);
  int64_t axis = n.attr_int("axis", x.opset >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return invalid_argument("{}: axis out of range", n.label());
  if (x.opset >= 13 && axis != rank - 1) {
    return unsupported(
        "{}: Softmax over axis {} of {}: XNNPACK's softmax normalizes the last "
        "axis only",
        n.label(), axis, X.describe());
  }
  int64_t channels = 1;
  for (int64_t i = axis; i < X.rank(); ++i) channels *= X.dim(static_cast<int>(i));
  const Unary u = plain("softmax_nc", xnn_create_softmax_nc_f32, xnn_setup_softmax_nc_f32);
  IG_ASSIGN_OR_RETURN(Buffer y,
                      run_rows(c, n, u, copy_of(X), static_cast<size_t>(X.numel() / channels),
                               static_cast<size_t>(channels), false));
  return OpResult{tensor_of(y, X.shape()), note_of(u.name, false, f32_note(c))};
}

// ---- PRelu: one slope per channel, the channel axis made the last one ----
Expected<OpResult> run_prelu(Ctx& c, const OpInputs& x) {
  IG_RETURN_IF_ERROR(require_float(x));
  IG_RETURN_IF_ERROR(require_nonempty(x));
  const Node& n = x.node;
  const Tensor& X = x.at(0);
  const Tensor& S = x.at(1);
  const size_t rank = X.shape().size();
  Shape slope(rank > S.shape().size() ? rank - S.shape().size() : 0, 1);
  slope.insert(slope.end(), S.shape().begin(), S.shape().end());
  auto only_axis = [&](size_t axis) {
    for (size_t i = 0; i < slope.size(); ++i) {
      if (i != axis && slope[i] != 1) return false;
    }
    return axis < rank && slope.size() == rank && slope[axis] == X.shape()[axis];
  };
  // Channels last: slopes along X's last axis, or one slope for everything.
  const bool last = rank >= 1 && (only_axis(rank - 1) || S.numel() == 1);
  const bool nchw = !last && rank >= 3 && only_axis(1);
  if (!last && !nchw) {
    return unsupported(
        "{}: slope {} for input {}: XNNPACK's prelu takes one slope per channel "
        "(axis 1 or the last axis)",
        n.label(), S.describe(), X.describe());
  }
  const int64_t channels = nchw ? X.dim(1) : X.dim(-1);
  Buffer slopes(static_cast<size_t>(channels), false);
  for (int64_t i = 0; i < channels; ++i) {
    slopes.f32()[i] = S.data<float>()[S.numel() == 1 ? 0 : i];
  }
  const bool half = c.opt.fp16;
  IG_ASSIGN_OR_RETURN(Buffer slopes_in, in_precision(c, n, std::move(slopes), half));
  const Unary u{"prelu_nc",
                [&](size_t ch, xnn_operator_t* o) {
                  return xnn_create_prelu_nc_f32(ch, ch, ch, slopes_in.f32(), 0, o);
                },
                xnn_setup_prelu_nc_f32,
                [&](size_t ch, xnn_operator_t* o) {
                  return xnn_create_prelu_nc_f16(ch, ch, ch, slopes_in.data(), 0, o);
                },
                xnn_setup_prelu_nc_f16};
  const Shape image = {X.dim(0), channels, 1, X.numel() / (X.dim(0) * channels)};
  Buffer in = nchw ? nchw_to_nhwc(X.reshaped(image)) : copy_of(X);
  const auto ch = static_cast<size_t>(channels);
  const size_t rows = in.size() / ch;
  IG_ASSIGN_OR_RETURN(Buffer y, run_rows(c, n, u, std::move(in), rows, ch, half));
  Tensor out = nchw ? nhwc_to_nchw(y, image).reshaped(X.shape()) : tensor_of(y, X.shape());
  return OpResult{out, note_of(u.name, half, nchw ? "NCHW->NHWC" : "")};
}

}  // namespace

const std::vector<OpDef>& elementwise_ops() {
  static const std::vector<OpDef> kOps = {
      {"", "Add", 1, kMaxOpset, run_binary, check_binary},
      {"", "Sub", 1, kMaxOpset, run_binary, check_binary},
      {"", "Mul", 1, kMaxOpset, run_binary, check_binary},
      {"", "Div", 1, kMaxOpset, run_binary, check_binary},
      {"", "Max", 1, kMaxOpset, run_binary, check_binary},
      {"", "Min", 1, kMaxOpset, run_binary, check_binary},
      {"", "Relu", 1, kMaxOpset, run_unary},
      {"", "Clip", 1, kMaxOpset, run_unary},
      {"", "LeakyRelu", 1, kMaxOpset, run_unary},
      {"", "Elu", 1, kMaxOpset, run_unary},
      {"", "HardSwish", 1, kMaxOpset, run_unary},
      {"", "Sigmoid", 1, kMaxOpset, run_unary},
      {"", "Abs", 1, kMaxOpset, run_unary},
      {"", "Neg", 1, kMaxOpset, run_unary},
      {"", "Sqrt", 1, kMaxOpset, run_unary},
      {"", "Floor", 1, kMaxOpset, run_unary},
      {"", "Ceil", 1, kMaxOpset, run_unary},
      {"", "Round", 1, kMaxOpset, run_unary},
      {"", "Softmax", 1, kMaxOpset, run_softmax},
      {"", "PRelu", 1, kMaxOpset, run_prelu},
  };
  return kOps;
}

}  // namespace ig::xnnpack

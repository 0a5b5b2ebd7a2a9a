// Eltwise, binary, softmax, concat and transpose (a reorder).
#include <algorithm>
#include <limits>
#include <optional>

#include "backends/onednn/onednn_ops.h"

namespace ig::onednn {

namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;

// A value fixed before the run: an initializer, or the output of a Constant node (how torch
// exports ReLU6's bounds); nullptr when computed.
const Tensor* constant_value(const Model& m, const std::string& name) {
  auto it = m.graph.initializers.find(name);
  if (it != m.graph.initializers.end()) return &it->second;
  for (const Node& p : m.graph.nodes) {
    if (p.op_type != "Constant" || !p.domain.empty() || p.outputs.size() != 1 ||
        p.outputs[0] != name) {
      continue;
    }
    auto a = p.attributes.find("value");
    return a != p.attributes.end() && a->second.kind == Attribute::Kind::kTensor ? &a->second.t
                                                                                 : nullptr;
  }
  return nullptr;
}

// Clip's bound from its attribute (opset < 11) or constant input (11+); nullopt if computed.
std::optional<float> clip_bound(const Node& n, const Model& m, size_t input, const char* attr,
                                float fallback) {
  if (m.opset_for(n.domain) < 11) return n.attr_float(attr, fallback);
  if (input >= n.inputs.size() || n.inputs[input].empty()) return fallback;
  const Tensor* t = constant_value(m, n.inputs[input]);
  if (!t || t->dtype() != DType::kFloat32 || t->numel() != 1) return std::nullopt;
  return t->data<float>()[0];
}

int64_t normalize_axis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

Status check_eltwise(const Node& n, const Model& m) {
  if (eltwise_post_op(n, m)) return Status::Ok();
  return unsupported("{}: Clip with computed (non-constant) min/max is not mapped", n.label());
}

Expected<OpResult> run_eltwise_op(Ctx& c, const OpInputs& x, const PostOp& op,
                                  const std::vector<PostOp>& post) {
  const Tensor& X = x.at(0);
  const memory::desc md = plain_md(X);
  dnnl::eltwise_forward::desc d(prop_kind::forward_inference, op.alg, layout_of(c, X), op.alpha,
                                op.beta);
  auto pd = [&] {
    return dnnl::eltwise_forward::primitive_desc(d, make_attr(c.opt, post, X.shape().size()),
                                                 c.eng);
  };
  return execute<dnnl::eltwise_forward>(c, pd, {{DNNL_ARG_SRC, &X, md}}, X.shape(), post);
}

// ---- Binary ----
Expected<OpResult> run_binary(Ctx& c, const OpInputs& x, const std::vector<PostOp>& post) {
  IG_RETURN_IF_ERROR(require_float(x));
  const auto alg = binary_alg(x.node);
  if (!alg) return unsupported("{}: only two-input forms map to oneDNN binary", x.node.label());
  const Tensor* a = &x.at(0);
  const Tensor* b = &x.at(1);
  const size_t rank = std::max(a->shape().size(), b->shape().size());
  Shape sa = pad_left(a->shape(), rank), sb = pad_left(b->shape(), rank);
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (sa[i] != sb[i] && sa[i] != 1 && sb[i] != 1) {
      return invalid_argument("{}: {} and {} do not broadcast", x.node.label(), a->describe(),
                              b->describe());
    }
    out[i] = std::max(sa[i], sb[i]);
  }
  if (sa != out) {
    // oneDNN broadcasts only its second source; commutative ops may swap.
    const bool commutative = x.node.op_type == "Add" || x.node.op_type == "Mul" ||
                             x.node.op_type == "Max" || x.node.op_type == "Min";
    if (!commutative || sb != out) {
      return unsupported("{}: oneDNN broadcasts only the second operand ({} {} {})", x.node.label(),
                         a->describe(), x.node.op_type, b->describe());
    }
    std::swap(a, b);
    std::swap(sa, sb);
  }
  if (rank == 0) sa = sb = out = {};
  const memory::data_type dt = dnnl_type(a->dtype());
  // Operands of the output's own shape take the layout they come in (the output follows the
  // first); a broadcast operand stays plain.
  const bool as_they_come = a->shape() == out && b->shape() == out;
  dnnl::binary::desc d(
      *alg, as_they_come ? layout_of(c, *a) : plain_md(sa, dt),
      as_they_come ? layout_of(c, *b) : plain_md(sb, dt),
      as_they_come ? memory::desc(to_dims(out), dt, kAnyLayout) : plain_md(out, dt));
  auto pd = [&] {
    return dnnl::binary::primitive_desc(d, make_attr(c.opt, post, out.size()), c.eng);
  };
  return execute<dnnl::binary>(
      c, pd, {{DNNL_ARG_SRC_0, a, plain_md(sa, dt)}, {DNNL_ARG_SRC_1, b, plain_md(sb, dt)}}, out,
      post);
}

// ---- Softmax ----
Expected<OpResult> run_softmax(Ctx& c, const OpInputs& x, const std::vector<PostOp>&) {
  IG_RETURN_IF_ERROR(require_float(x));
  const Tensor& X = x.at(0);
  const int64_t rank = std::max(X.rank(), 1);
  Shape shape = X.shape().empty() ? Shape{1} : X.shape();
  int64_t axis = normalize_axis(x.node.attr_int("axis", x.opset >= 13 ? -1 : 1), rank);
  if (axis < 0 || axis >= rank) return invalid_argument("{}: axis out of range", x.node.label());
  if (x.opset < 13) {
    // Softmax-1/11 normalize the input coerced to 2-D at `axis`.
    int64_t outer = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= shape[i];
    shape = {outer, X.numel() / std::max<int64_t>(outer, 1)};
    axis = 1;
  }
  const algorithm alg =
      x.node.op_type == "LogSoftmax" ? algorithm::softmax_log : algorithm::softmax_accurate;
  const memory::desc md = plain_md(shape, dnnl_type(X.dtype()));
  dnnl::softmax_v2_forward::desc d(prop_kind::forward_inference, alg, md, md,
                                   static_cast<int>(axis));
  auto pd = [&] { return dnnl::softmax_v2_forward::primitive_desc(d, c.eng); };
  Tensor flat = X.reshaped(shape);
  IG_ASSIGN_OR_RETURN(OpResult r,
                      execute<dnnl::softmax_v2_forward>(c, pd, {{DNNL_ARG_SRC, &flat, md}}, shape));
  r.out = r.out.reshaped(X.shape());
  return r;
}

// ---- Concat ----
Expected<OpResult> run_concat(Ctx& c, const OpInputs& x, const std::vector<PostOp>&) {
  IG_RETURN_IF_ERROR(require_float(x));
  const Tensor& first = x.at(0);
  const int64_t axis = normalize_axis(x.node.attr_int("axis", 0), first.rank());
  if (first.rank() == 0 || axis < 0 || axis >= first.rank())
    return invalid_argument("{}: axis out of range for {}", x.node.label(), first.describe());
  std::vector<memory::desc> mds;
  std::vector<Arg> args;
  Shape out = first.shape();
  out[axis] = 0;
  for (size_t i = 0; i < x.in.size(); ++i) {
    if (x.at(i).rank() != first.rank())
      return invalid_argument("{}: inputs differ in rank", x.node.label());
    out[axis] += x.at(i).dim(static_cast<int>(axis));
    if (x.at(i).numel() == 0) continue;  // oneDNN rejects empty sources; they add nothing
    mds.push_back(plain_md(x.at(i)));
    args.push_back({DNNL_ARG_MULTIPLE_SRC + static_cast<int>(args.size()), &x.at(i), mds.back()});
  }
  if (mds.empty()) return OpResult{Tensor(first.dtype(), out), "empty"};
  auto pd = [&] {
    return dnnl::concat::primitive_desc(plain_md(out, dnnl_type(first.dtype())),
                                        static_cast<int>(axis), mds, c.eng);
  };
  return execute<dnnl::concat>(c, pd, args, out);
}

// ---- Transpose: a reorder between permuted strides ----
Expected<OpResult> run_transpose(Ctx& c, const OpInputs& x, const std::vector<PostOp>&) {
  IG_RETURN_IF_ERROR(require_float(x));
  const Tensor& X = x.at(0);
  const int64_t rank = X.rank();
  std::vector<int64_t> perm = x.node.attr_ints("perm");
  if (perm.empty()) {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != rank)
    return invalid_argument("{}: perm does not match rank {}", x.node.label(), rank);
  if (rank == 0 || X.numel() == 0) return OpResult{X.clone(), "copy"};
  const auto in_strides = X.strides();
  Shape out(rank);
  dims strides(rank);
  for (int64_t i = 0; i < rank; ++i) {
    out[i] = X.dim(static_cast<int>(perm[i]));
    strides[i] = in_strides[perm[i]];
  }
  const memory::desc src_md(to_dims(out), dnnl_type(X.dtype()), strides);
  Tensor Y(X.dtype(), out);
  memory src = wrap(c, X, src_md), dst = wrap(c, Y);
  dnnl::reorder::primitive_desc pd(c.eng, src_md, c.eng, dst.get_desc());
  dnnl::reorder(pd).execute(c.strm, src, dst);
  c.strm.wait();
  return OpResult{Y, pd.impl_info_str()};
}

Expected<OpResult> run_eltwise(Ctx& c, const OpInputs& x, const std::vector<PostOp>& post);

// ---- Cast between fp32 and bf16: a reorder (to bf16: round to nearest even) ----
Status check_cast(const Node& n, const Model&) {
  const int64_t to = n.attr_int("to", 0);
  if (to != 1 && to != 16) {  // TensorProto FLOAT, BFLOAT16
    return unsupported("{}: oneDNN maps Cast to float or bfloat16 only (to={})", n.label(), to);
  }
  return Status::Ok();
}

Expected<OpResult> run_cast(Ctx& c, const OpInputs& x, const std::vector<PostOp>&) {
  IG_RETURN_IF_ERROR(require_float(x));
  const Tensor& X = x.at(0);
  const DType to = x.node.attr_int("to", 0) == 16 ? DType::kBFloat16 : DType::kFloat32;
  if (X.dtype() == to) return OpResult{X.clone(), "copy"};
  Tensor Y(to, X.shape());
  if (X.numel() == 0) return OpResult{Y, "empty"};
  memory src = wrap(c, X), dst = wrap(c, Y);
  dnnl::reorder::primitive_desc pd(c.eng, src.get_desc(), c.eng, dst.get_desc());
  dnnl::reorder(pd).execute(c.strm, src, dst);
  c.strm.wait();
  return OpResult{Y, pd.impl_info_str()};
}

}  // namespace

std::optional<PostOp> eltwise_post_op(const Node& n, const Model& m) {
  if (!n.domain.empty()) return std::nullopt;
  const std::string& op = n.op_type;
  auto simple = [](algorithm alg, float alpha = 0, float beta = 0) {
    return PostOp{alg, false, false, alpha, beta, {}};
  };
  if (op == "Relu") return simple(algorithm::eltwise_relu);
  if (op == "LeakyRelu") return simple(algorithm::eltwise_relu, n.attr_float("alpha", 0.01f));
  if (op == "Elu") return simple(algorithm::eltwise_elu, n.attr_float("alpha", 1.0f));
  if (op == "Sigmoid") return simple(algorithm::eltwise_logistic);
  if (op == "Tanh") return simple(algorithm::eltwise_tanh);
  if (op == "Exp") return simple(algorithm::eltwise_exp);
  if (op == "Log") return simple(algorithm::eltwise_log);
  if (op == "Sqrt") return simple(algorithm::eltwise_sqrt);
  if (op == "Abs") return simple(algorithm::eltwise_abs);
  if (op == "Neg") return simple(algorithm::eltwise_linear, -1.0f, 0.0f);
  if (op == "Round") return simple(algorithm::eltwise_round);
  if (op == "HardSwish") return simple(algorithm::eltwise_hardswish);
  if (op == "Mish") return simple(algorithm::eltwise_mish);
  if (op == "Gelu") {
    return simple(n.attr_string("approximate", "none") == "tanh" ? algorithm::eltwise_gelu_tanh
                                                                 : algorithm::eltwise_gelu_erf);
  }
  if (op == "Clip") {
    auto lo = clip_bound(n, m, 1, "min", std::numeric_limits<float>::lowest());
    auto hi = clip_bound(n, m, 2, "max", std::numeric_limits<float>::max());
    if (!lo || !hi) return std::nullopt;
    return simple(algorithm::eltwise_clip_v2, *lo, *hi);
  }
  return std::nullopt;
}

std::optional<dnnl::algorithm> binary_alg(const Node& n) {
  if (!n.domain.empty() || n.inputs.size() != 2) return std::nullopt;
  const std::string& op = n.op_type;
  if (op == "Add") return algorithm::binary_add;
  if (op == "Sub") return algorithm::binary_sub;
  if (op == "Mul") return algorithm::binary_mul;
  if (op == "Div") return algorithm::binary_div;
  if (op == "Max") return algorithm::binary_max;
  if (op == "Min") return algorithm::binary_min;
  return std::nullopt;
}

namespace {
// The model is needed for Clip's constant bounds: keep it out of OpInputs by re-deriving the
// bounds from the inputs the executor passes (initializers arrive as tensors).
Expected<OpResult> run_eltwise(Ctx& c, const OpInputs& x, const std::vector<PostOp>& post) {
  if (!x.has(0) || (x.at(0).dtype() != DType::kFloat32 && x.at(0).dtype() != DType::kBFloat16))
    return unsupported("{}: oneDNN eltwise runs fp32 and bf16 only", x.node.label());
  Model bounds;
  bounds.opsets[""] = x.opset;
  for (size_t i = 1; i < x.in.size() && i < x.node.inputs.size(); ++i) {
    if (x.has(i)) bounds.graph.initializers[x.node.inputs[i]] = x.at(i);
  }
  auto op = eltwise_post_op(x.node, bounds);
  if (!op) return unsupported("{}: not an eltwise operator", x.node.label());
  return run_eltwise_op(c, x, *op, post);
}
}  // namespace

const std::vector<OpDef>& elementwise_ops() {
  static const std::vector<OpDef> kOps = {
      {"", "Relu", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "LeakyRelu", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Elu", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Sigmoid", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Tanh", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Exp", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Log", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Sqrt", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Abs", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Neg", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Round", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "HardSwish", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Mish", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Gelu", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Clip", 1, kMaxOpset, {run_eltwise, true, 1}, check_eltwise},
      {"", "Add", 1, kMaxOpset, {run_binary, true, 2}},
      {"", "Sub", 1, kMaxOpset, {run_binary, true, 2}},
      {"", "Mul", 1, kMaxOpset, {run_binary, true, 2}},
      {"", "Div", 1, kMaxOpset, {run_binary, true, 2}},
      {"", "Max", 1, kMaxOpset, {run_binary, true, 2}},
      {"", "Min", 1, kMaxOpset, {run_binary, true, 2}},
      {"", "Softmax", 1, kMaxOpset, {run_softmax, false}},
      {"", "LogSoftmax", 1, kMaxOpset, {run_softmax, false}},
      {"", "Concat", 1, kMaxOpset, {run_concat, false}},
      {"", "Transpose", 1, kMaxOpset, {run_transpose, false}},
      {"", "Cast", 6, kMaxOpset, {run_cast, false}, check_cast},
  };
  return kOps;
}

const std::vector<OpDef>& ops() {
  static const std::vector<OpDef> kOps = [] {
    std::vector<OpDef> all = nn_ops();
    all.insert(all.end(), elementwise_ops().begin(), elementwise_ops().end());
    all.insert(all.end(), quant_ops().begin(), quant_ops().end());
    return all;
  }();
  return kOps;
}

Status require_float(const OpInputs& x, bool one_type) {
  std::optional<DType> first;
  for (size_t i = 0; i < x.in.size(); ++i) {
    if (!x.has(i)) continue;
    const DType t = x.at(i).dtype();
    if (t != DType::kFloat32 && t != DType::kBFloat16) {
      return unsupported("{}: input '{}' is {}; the oneDNN backend maps fp32 and bf16 only",
                         x.node.label(), x.node.inputs[i], x.at(i).describe());
    }
    if (one_type && first && *first != t) {
      return unsupported("{}: inputs mix {} and {}; oneDNN's primitives here take one type",
                         x.node.label(), dtype_name(*first), dtype_name(t));
    }
    first = t;
  }
  return Status::Ok();
}

}  // namespace ig::onednn

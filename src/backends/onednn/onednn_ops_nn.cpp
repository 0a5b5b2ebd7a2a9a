// Convolution, inner product / matmul, pooling, batch and layer normalization.
#include <algorithm>
#include <array>
#include <cmath>

#include "backends/onednn/onednn_ops.h"
#include "tensor/convert.h"

namespace ig::onednn {

namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
constexpr auto kF32 = memory::data_type::f32;

memory::desc any_md(const Shape& shape, memory::data_type dt = kF32) {
  return memory::desc(to_dims(shape), dt, kAnyLayout);
}

// What a matrix product reads: bf16 operands as they are, fp32 ones as fp32 or, with dtype=bf16,
// rounded to bf16.
memory::data_type operand_type(const Ctx& c, const Tensor& t) {
  return t.dtype() == DType::kBFloat16 ? memory::data_type::bf16 : c.opt.compute;
}
memory::data_type type_of(const Tensor& t) { return dnnl_type(t.dtype()); }

Status check_spatial(const Node& n) {
  if (n.has_attr("kernel_shape") &&
      (n.attr_ints("kernel_shape").empty() || n.attr_ints("kernel_shape").size() > 3)) {
    return unsupported("{}: oneDNN runs 1 to 3 spatial dimensions", n.label());
  }
  return Status::Ok();
}

// ---- Conv ----
Expected<OpResult> conv_with(Ctx& c, const OpInputs& x, const std::vector<PostOp>& requested,
                             algorithm alg) {
  const KeySuffix key(c, fmt::format("|alg{}", static_cast<int>(alg)));
  const Tensor& X = x.at(0);
  const Tensor& W = x.at(1);
  const int64_t group = x.node.attr_int("group", 1);
  if (X.rank() < 3 || X.rank() > 5 || W.rank() != X.rank()) {
    return unsupported("{}: oneDNN convolution needs 1 to 3 spatial dims (input {}, weights {})",
                       x.node.label(), X.describe(), W.describe());
  }
  const Shape kernel(W.shape().begin() + 2, W.shape().end());
  auto w = window_of(x.node, X.shape(), kernel, false);
  if (!w.ok()) return w.status();
  const int64_t oc = W.dim(0);
  if (group < 1 || oc % group != 0 || X.dim(1) != W.dim(1) * group) {
    return invalid_argument("{}: channels {} / weights {} / group {} do not match", x.node.label(),
                            X.dim(1), W.describe(), group);
  }
  Shape out = {X.dim(0), oc};
  out.insert(out.end(), w->out.begin(), w->out.end());
  const std::vector<PostOp> post = sums_where_shapes_match(c, requested, out);
  Shape wshape = W.shape();
  if (group > 1) {
    wshape = {group, oc / group, W.dim(1)};
    wshape.insert(wshape.end(), kernel.begin(), kernel.end());
  }
  const bool bias = x.has(2);
  const memory::desc bias_md = bias ? any_md({oc}) : memory::desc();
  // A bf16 model's convolution reads and writes bf16 (fp32 sums), as its Gemm and MatMul do; an
  // fp32 one reads the compute type and writes fp32.
  dnnl::convolution_forward::desc d(
      prop_kind::forward_inference, alg, any_md(X.shape(), operand_type(c, X)),
      any_md(wshape, operand_type(c, W)), bias_md, any_md(out, type_of(X)), w->strides,
      minus_one(w->dilations), w->pad_begin, w->pad_end);
  auto pd = [&] {
    try {
      return dnnl::convolution_forward::primitive_desc(d, make_attr_any(c.opt, post, out), c.eng);
    } catch (const dnnl::error&) {
      // No implementation takes the operand in a layout of its choice: a plain one, as before.
      return dnnl::convolution_forward::primitive_desc(d, make_attr(c.opt, post, out.size()),
                                                       c.eng);
    }
  };
  std::vector<Arg> args = {{DNNL_ARG_SRC, &X, plain_md(X)},
                           {DNNL_ARG_WEIGHTS, &W, plain_md(wshape, type_of(W))}};
  if (bias) args.push_back({DNNL_ARG_BIAS, &x.at(2), plain_md(x.at(2))});
  return execute<dnnl::convolution_forward>(c, pd, args, out, post);
}

Expected<OpResult> run_conv(Ctx& c, const OpInputs& x, const std::vector<PostOp>& post) {
  IG_RETURN_IF_ERROR(require_float(x));
  if (c.opt.conv == "direct") return conv_with(c, x, post, algorithm::convolution_direct);
  if (c.opt.conv == "auto") return conv_with(c, x, post, algorithm::convolution_auto);
  try {
    return conv_with(c, x, post, algorithm::convolution_winograd);
  } catch (const dnnl::error&) {
    // oneDNN has Winograd only for some shapes and ISAs: say so in the trace instead of failing.
    auto r = conv_with(c, x, post, algorithm::convolution_direct);
    if (r.ok()) r->impl = "winograd unavailable for this conv, direct: " + r->impl;
    return r;
  }
}

Status check_conv(const Node& n, const Model&) { return check_spatial(n); }

// ---- Gemm / MatMul ----
Status check_gemm(const Node& n, const Model&) {
  if (n.attr_int("transA", 0) != 0 && n.attr_float("alpha", 1) != 1) {
    return unsupported("{}: transA with alpha != 1 is not mapped", n.label());
  }
  if (n.attr_float("beta", 1.0f) != 1.0f && n.inputs.size() > 2 && !n.inputs[2].empty()) {
    return unsupported("{}: beta != 1 would need an extra rounding of C before oneDNN adds it",
                       n.label());
  }
  return Status::Ok();
}

// Gemm with B as weights: inner product (the fully connected layer). C must be [N] or absent.
Expected<OpResult> run_gemm(Ctx& c, const OpInputs& x, const std::vector<PostOp>& post) {
  IG_RETURN_IF_ERROR(require_float(x));
  const Node& n = x.node;
  const Tensor& A = x.at(0);
  const Tensor& B = x.at(1);
  if (A.rank() != 2 || B.rank() != 2)
    return invalid_argument("{}: Gemm needs 2-D A and B", n.label());
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  const int64_t M = ta ? A.dim(1) : A.dim(0), K = ta ? A.dim(0) : A.dim(1);
  const int64_t N = tb ? B.dim(0) : B.dim(1);
  if ((tb ? B.dim(1) : B.dim(0)) != K) {
    return invalid_argument("{}: A {} and B {} do not multiply", n.label(), A.describe(),
                            B.describe());
  }
  const bool has_c = x.has(2);
  const float alpha = n.attr_float("alpha", 1.0f);
  const Shape out = {M, N};
  // Matrices as oneDNN views: strides express the transposes, no copies.
  const memory::desc a_md(dims{M, K}, type_of(A), ta ? dims{1, M} : dims{K, 1});
  const memory::desc b_md(dims{K, N}, type_of(B), tb ? dims{1, K} : dims{N, 1});
  if (!ta && alpha == 1.0f && (!has_c || x.at(2).shape() == Shape{N})) {
    const memory::desc w_md(dims{N, K}, type_of(B), tb ? dims{K, 1} : dims{1, N});
    dnnl::inner_product_forward::desc d(
        prop_kind::forward_inference, any_md({M, K}, operand_type(c, A)),
        any_md({N, K}, operand_type(c, B)), has_c ? any_md({N}) : memory::desc(),
        any_md(out, type_of(A)));
    auto pd = [&] {
      return dnnl::inner_product_forward::primitive_desc(d, make_attr(c.opt, post, 2), c.eng);
    };
    std::vector<Arg> args = {{DNNL_ARG_SRC, &A, a_md}, {DNNL_ARG_WEIGHTS, &B, w_md}};
    if (has_c) args.push_back({DNNL_ARG_BIAS, &x.at(2), plain_md(x.at(2))});
    return execute<dnnl::inner_product_forward>(c, pd, args, out, post);
  }
  memory::desc bias_md;
  if (has_c) {
    const Shape cs = pad_left(x.at(2).shape(), 2);
    if (cs.size() != 2 || (cs[0] != 1 && cs[0] != M) || (cs[1] != 1 && cs[1] != N)) {
      return invalid_argument("{}: C {} does not broadcast to [{},{}]", n.label(),
                              x.at(2).describe(), M, N);
    }
    bias_md = plain_md(cs, type_of(x.at(2)));
  }
  // The primitive reads A and B in the compute type, through the same strides.
  const memory::desc a_in(dims{M, K}, operand_type(c, A), ta ? dims{1, M} : dims{K, 1});
  const memory::desc b_in(dims{K, N}, operand_type(c, B), tb ? dims{1, K} : dims{N, 1});
  dnnl::matmul::desc d(a_in, b_in, bias_md, plain_md(out, type_of(A)));
  dnnl::primitive_attr attr = make_attr(c.opt, post, 2);
  if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
  auto pd = [&] { return dnnl::matmul::primitive_desc(d, attr, c.eng); };
  std::vector<Arg> args = {{DNNL_ARG_SRC, &A, a_md}, {DNNL_ARG_WEIGHTS, &B, b_md}};
  if (has_c) args.push_back({DNNL_ARG_BIAS, &x.at(2), bias_md});
  return execute<dnnl::matmul>(c, pd, args, out, post);
}

Expected<OpResult> run_matmul(Ctx& c, const OpInputs& x, const std::vector<PostOp>& post) {
  IG_RETURN_IF_ERROR(require_float(x));
  const Tensor& A = x.at(0);
  const Tensor& B = x.at(1);
  if (A.rank() < 2 || B.rank() < 2) {
    return unsupported("{}: 1-D MatMul operands are not mapped to oneDNN", x.node.label());
  }
  const size_t rank = std::max(A.shape().size(), B.shape().size());
  const Shape a = pad_left(A.shape(), rank), b = pad_left(B.shape(), rank);
  Shape out(rank);
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1) {
      return invalid_argument("{}: batch dims of {} and {} do not broadcast", x.node.label(),
                              A.describe(), B.describe());
    }
    out[i] = std::max(a[i], b[i]);
  }
  if (a[rank - 1] != b[rank - 2]) {
    return invalid_argument("{}: {} and {} do not multiply", x.node.label(), A.describe(),
                            B.describe());
  }
  out[rank - 2] = a[rank - 2];
  out[rank - 1] = b[rank - 1];
  dnnl::matmul::desc d(plain_md(a, operand_type(c, A)), plain_md(b, operand_type(c, B)),
                       plain_md(out, type_of(A)));
  auto pd = [&] { return dnnl::matmul::primitive_desc(d, make_attr(c.opt, post, rank), c.eng); };
  return execute<dnnl::matmul>(c, pd,
                               {{DNNL_ARG_SRC, &A, plain_md(a, type_of(A))},
                                {DNNL_ARG_WEIGHTS, &B, plain_md(b, type_of(B))}},
                               out, post);
}

// ---- Pooling ----
Status check_pool(const Node& n, const Model&) {
  IG_RETURN_IF_ERROR(check_spatial(n));
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) {
    return unsupported("{}: MaxPool's Indices output has no oneDNN equivalent", n.label());
  }
  if (n.op_type == "AveragePool" && n.attr_int("ceil_mode", 0) != 0 &&
      n.attr_int("count_include_pad", 0) != 0) {
    return unsupported("{}: ceil_mode with count_include_pad counts padding differently in oneDNN",
                       n.label());
  }
  return Status::Ok();
}

Expected<OpResult> run_pool(Ctx& c, const OpInputs& x, const std::vector<PostOp>& post) {
  const Node& n = x.node;
  const Tensor& X = x.at(0);
  // A QOperator model's MaxPool runs on the integers (oneDNN's u8/s8 max pooling: exact).
  const bool max = n.op_type == "MaxPool" || n.op_type == "GlobalMaxPool";
  if (!max || (X.dtype() != DType::kUInt8 && X.dtype() != DType::kInt8))
    IG_RETURN_IF_ERROR(require_float(x));
  if (X.rank() < 3 || X.rank() > 5) {
    return unsupported("{}: oneDNN pooling needs 1 to 3 spatial dims, got {}", n.label(),
                       X.describe());
  }
  const bool global = n.op_type.rfind("Global", 0) == 0;
  const std::vector<int64_t> kernel =
      global ? std::vector<int64_t>(X.shape().begin() + 2, X.shape().end())
             : n.attr_ints("kernel_shape");
  if (kernel.size() + 2 != X.shape().size()) {
    return invalid_argument("{}: kernel_shape does not match input {}", n.label(), X.describe());
  }
  Node plain_window = n;  // global pooling: no strides/pads attributes apply
  if (global) plain_window.attributes.clear();
  auto w = window_of(plain_window, X.shape(), kernel, n.attr_int("ceil_mode", 0) != 0);
  if (!w.ok()) return w.status();
  Shape out = {X.dim(0), X.dim(1)};
  out.insert(out.end(), w->out.begin(), w->out.end());
  algorithm alg = algorithm::pooling_max;
  if (n.op_type == "AveragePool" || n.op_type == "GlobalAveragePool") {
    alg = n.attr_int("count_include_pad", 0) ? algorithm::pooling_avg_include_padding
                                             : algorithm::pooling_avg_exclude_padding;
  }
  // Pooling takes its source layout as given (no `any`).
  dnnl::pooling_v2_forward::desc d(prop_kind::forward_inference, alg, layout_of(c, X),
                                   any_md(out, type_of(X)), w->strides, w->kernel,
                                   minus_one(w->dilations), w->pad_begin, w->pad_end);
  auto pd = [&] {
    return dnnl::pooling_v2_forward::primitive_desc(d, make_attr(c.opt, post, out.size()), c.eng);
  };
  return execute<dnnl::pooling_v2_forward>(c, pd, {{DNNL_ARG_SRC, &X, plain_md(X)}}, out, post);
}

// ---- Normalization ----
Status check_bn(const Node& n, const Model&) {
  for (size_t i = 1; i < n.outputs.size(); ++i) {
    if (!n.outputs[i].empty())
      return unsupported("{}: training-mode BatchNormalization is not mapped", n.label());
  }
  if (n.attr_int("training_mode", 0) != 0)
    return unsupported("{}: training_mode=1 is not mapped", n.label());
  return Status::Ok();
}

Expected<OpResult> run_bn(Ctx& c, const OpInputs& x, const std::vector<PostOp>& post) {
  IG_RETURN_IF_ERROR(require_float(x, /*one_type=*/false));
  const Tensor& X = x.at(0);
  if (X.rank() < 2 || X.rank() > 5) {
    return unsupported("{}: oneDNN batch normalization takes 2-D to 5-D input", x.node.label());
  }
  const Shape ch = {X.dim(1)};
  for (size_t i = 1; i <= 4; ++i) {
    if (x.at(i).shape() != ch) {
      return invalid_argument("{}: input {} is {}, expected [{}]", x.node.label(), i,
                              x.at(i).describe(), X.dim(1));
    }
  }
  const auto flags = dnnl::normalization_flags::use_global_stats |
                     dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  dnnl::batch_normalization_forward::desc d(prop_kind::forward_inference, layout_of(c, X),
                                            x.node.attr_float("epsilon", 1e-5f), flags);
  const Tensor scale = convert_float_tensor(x.at(1), DType::kFloat32),
               shift = convert_float_tensor(x.at(2), DType::kFloat32),
               mean = convert_float_tensor(x.at(3), DType::kFloat32),
               var = convert_float_tensor(x.at(4), DType::kFloat32);
  auto pd = [&] {
    return dnnl::batch_normalization_forward::primitive_desc(
        d, make_attr(c.opt, post, X.shape().size()), c.eng);
  };
  return execute<dnnl::batch_normalization_forward>(c, pd,
                                                    {{DNNL_ARG_SRC, &X, plain_md(X)},
                                                     {DNNL_ARG_SCALE, &scale, plain_md(ch)},
                                                     {DNNL_ARG_SHIFT, &shift, plain_md(ch)},
                                                     {DNNL_ARG_MEAN, &mean, plain_md(ch)},
                                                     {DNNL_ARG_VARIANCE, &var, plain_md(ch)}},
                                                    X.shape(), post);
}

Status check_ln(const Node& n, const Model&) {
  for (size_t i = 1; i < n.outputs.size(); ++i) {
    if (!n.outputs[i].empty())
      return unsupported("{}: LayerNormalization's Mean/InvStdDev outputs are not mapped",
                         n.label());
  }
  return Status::Ok();
}

Expected<OpResult> run_ln(Ctx& c, const OpInputs& x, const std::vector<PostOp>& post) {
  IG_RETURN_IF_ERROR(require_float(x, /*one_type=*/false));
  const Tensor& X = x.at(0);
  const int64_t axis = x.node.attr_int("axis", -1);
  if (X.rank() < 2 || (axis != -1 && axis != X.rank() - 1)) {
    return unsupported("{}: oneDNN normalizes over the last axis only (axis={}, input {})",
                       x.node.label(), axis, X.describe());
  }
  const Shape ch = {X.dim(-1)};
  if (x.at(1).shape() != ch || (x.has(2) && x.at(2).shape() != ch)) {
    return unsupported("{}: scale/bias must be [{}] for oneDNN", x.node.label(), X.dim(-1));
  }
  auto flags = dnnl::normalization_flags::use_scale;
  if (x.has(2)) flags = flags | dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::desc d(prop_kind::forward_inference, plain_md(X),
                                            x.node.attr_float("epsilon", 1e-5f), flags);
  auto pd = [&] {
    return dnnl::layer_normalization_forward::primitive_desc(
        d, make_attr(c.opt, post, X.shape().size()), c.eng);
  };
  const Tensor scale = convert_float_tensor(x.at(1), DType::kFloat32),
               shift = x.has(2) ? convert_float_tensor(x.at(2), DType::kFloat32) : Tensor();
  std::vector<Arg> args = {{DNNL_ARG_SRC, &X, plain_md(X)}, {DNNL_ARG_SCALE, &scale, plain_md(ch)}};
  if (x.has(2)) args.push_back({DNNL_ARG_SHIFT, &shift, plain_md(ch)});
  return execute<dnnl::layer_normalization_forward>(c, pd, args, X.shape(), post);
}

}  // namespace

namespace {

// Batch norm's parameters as fp32 per channel: scale, B, mean, var, and f = scale / sqrt(var +
// eps) in fp32 (the reference backend's bn=folded factor).
struct BnChannels {
  std::array<std::vector<float>, 4> v;
  std::vector<float> factor;
};

Expected<BnChannels> bn_channels(const Node& bn, const std::array<const Tensor*, 4>& p,
                                 int64_t channels) {
  BnChannels b;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i]->rank() != 1 || p[i]->numel() != channels)
      return unsupported("{}: input {} is {}, expected [{}]", bn.label(), i + 1, p[i]->describe(),
                         channels);
    const Tensor f = convert_float_tensor(*p[i], DType::kFloat32);
    b.v[i].assign(f.data<float>(), f.data<float>() + channels);
  }
  const float eps = bn.attr_float("epsilon", 1e-5f);
  b.factor.resize(b.v[0].size());
  for (size_t k = 0; k < b.factor.size(); ++k) b.factor[k] = b.v[0][k] / std::sqrt(b.v[3][k] + eps);
  return b;
}

}  // namespace

Expected<std::vector<PostOp>> bn_post_ops(const Node& bn, const std::array<const Tensor*, 4>& p,
                                          size_t rank, int64_t channels) {
  if (rank < 2) return unsupported("{}: batch norm post-ops need a channel axis", bn.label());
  IG_ASSIGN_OR_RETURN(BnChannels b, bn_channels(bn, p, channels));
  Shape per_channel(rank, 1);
  per_channel[1] = channels;
  auto op = [&](algorithm alg, const std::vector<float>& values) {
    return PostOp{alg, true, false, 0, 0, Tensor::from_vector(values, per_channel)};
  };
  return std::vector<PostOp>{op(algorithm::binary_sub, b.v[2]), op(algorithm::binary_mul, b.factor),
                             op(algorithm::binary_add, b.v[1])};
}

Expected<std::array<Tensor, 2>> bn_into_weights(const Node& bn,
                                                const std::array<const Tensor*, 4>& params,
                                                const Tensor& weights, const Tensor* bias) {
  if (weights.rank() < 2 || weights.dtype() != DType::kFloat32 ||
      (bias && (bias->dtype() != DType::kFloat32 || bias->numel() != weights.dim(0))))
    return unsupported("{}: batch norm folds only into fp32 convolution weights and bias",
                       bn.label());
  const int64_t channels = weights.dim(0);
  IG_ASSIGN_OR_RETURN(BnChannels b, bn_channels(bn, params, channels));
  IG_ASSIGN_OR_RETURN(Tensor w, Tensor::create_for_overwrite(DType::kFloat32, weights.shape()));
  const int64_t per_channel = weights.numel() / channels;
  const float* from = weights.data<float>();
  float* to = w.data<float>();
  for (int64_t m = 0; m < channels; ++m)
    for (int64_t i = 0; i < per_channel; ++i)
      to[m * per_channel + i] = from[m * per_channel + i] * b.factor[static_cast<size_t>(m)];
  IG_ASSIGN_OR_RETURN(Tensor folded_bias, Tensor::create(DType::kFloat32, {channels}));
  float* out = folded_bias.data<float>();
  for (int64_t m = 0; m < channels; ++m) {
    const auto k = static_cast<size_t>(m);
    const float conv_bias = bias ? bias->data<float>()[m] : 0.0f;
    out[m] = (conv_bias - b.v[2][k]) * b.factor[k] + b.v[1][k];  // fp-contract=off: two roundings
  }
  return std::array<Tensor, 2>{std::move(w), std::move(folded_bias)};
}

const std::vector<OpDef>& nn_ops() {
  static const std::vector<OpDef> kOps = {
      {"", "Conv", 1, kMaxOpset, {run_conv, true, 1}, check_conv},
      {"", "Gemm", 1, kMaxOpset, {run_gemm, true}, check_gemm},
      {"", "MatMul", 1, kMaxOpset, {run_matmul, true}},
      {"", "MaxPool", 1, kMaxOpset, {run_pool, false, 1}, check_pool},
      {"", "AveragePool", 1, kMaxOpset, {run_pool, false, 1}, check_pool},
      {"", "GlobalAveragePool", 1, kMaxOpset, {run_pool, false, 1}},
      {"", "GlobalMaxPool", 1, kMaxOpset, {run_pool, false, 1}},
      {"", "BatchNormalization", 1, kMaxOpset, {run_bn, false, 1}, check_bn},
      {"", "LayerNormalization", 1, kMaxOpset, {run_ln, false}, check_ln},
  };
  return kOps;
}

}  // namespace ig::onednn

// Graph rewrites that optimizers make or undo (issue 57), each equal to the parent in exact
// arithmetic: a BatchNormalization unfolded out of a Conv (exported models arrive with it folded,
// so no optimizer's fold ever ran) or folded into it, an initializer computed by a constant
// subgraph an optimizer folds, and a value cut in two and concatenated back (Split or Slice).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "inputs/rng.h"
#include "model/tensor_proto.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "synth/quantize_util.h"

namespace ig {

namespace {

const onnx::TensorProto* find_initializer(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

bool listed_as_input(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& i : g.input())
    if (i.name() == name) return true;
  return false;
}

// A float initializer a node may own: not a graph input a caller could override (old IRs).
const onnx::TensorProto* weight(const onnx::GraphProto& g, const std::string& name) {
  const auto* t = find_initializer(g, name);
  if (!t || !is_float_type(t->data_type()) || listed_as_input(g, name)) return nullptr;
  return t;
}

int readers(const onnx::GraphProto& g, const std::string& value) {
  int n = 0;
  for (const auto& node : g.node())
    for (const auto& in : node.input()) n += in == value ? 1 : 0;
  return n;
}

void erase_initializer(onnx::GraphProto& g, const std::string& name) {
  auto* inits = g.mutable_initializer();
  for (int i = 0; i < inits->size(); ++i)
    if (inits->Get(i).name() == name) {
      inits->DeleteSubrange(i, 1);
      return;
    }
}

void drop_initializer_if_unread(onnx::GraphProto& g, const std::string& name) {
  if (readers(g, name) == 0 && !is_graph_output(g, name)) erase_initializer(g, name);
}

std::vector<double> doubles_of(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.as_double(i);
  return v;
}

// Values rounded to `dtype` and read back, so later arithmetic starts from what is stored.
Expected<std::vector<double>> stored(DType dtype, std::vector<double> v) {
  IG_ASSIGN_OR_RETURN(Tensor t, tensor_from_doubles(dtype, {static_cast<int64_t>(v.size())}, v));
  return doubles_of(t);
}

std::string add_initializer(onnx::GraphProto& g, const std::string& hint, DType dtype,
                            const Shape& shape, const std::vector<double>& v) {
  std::string name = fresh_name(g, hint);
  tensor_to_proto(*tensor_from_doubles(dtype, shape, v), name, g.add_initializer());
  return name;
}

// The Conv's weight and bias (zeros when it has none) as doubles, with the output channels.
struct ConvParams {
  DType dtype;
  Shape w_shape;
  std::vector<double> w, b;
  int64_t per_channel() const { return static_cast<int64_t>(w.size()) / w_shape[0]; }
};

// Why the Conv's weights cannot absorb a BatchNormalization; "" when they can. Reads no data:
// the planner asks it of every Conv.
std::string why_not_conv_params(const onnx::GraphProto& g, const onnx::NodeProto& conv) {
  if (conv.op_type() != "Conv" || conv.input_size() < 2) return "not a Conv";
  if (conv.output_size() != 1) return "not one output";
  const auto* w = weight(g, conv.input(1));
  if (!w) return "its weight is not a float initializer";
  if (w->dims_size() < 3 || w->dims(0) < 1) return "its weight is not [M, C/group, k...]";
  if (conv.input_size() > 2 && !conv.input(2).empty()) {
    const auto* b = weight(g, conv.input(2));
    if (!b) return "its bias is not a float initializer";
    if (b->dims_size() != 1 || b->dims(0) != w->dims(0)) return "its bias is not [M]";
    if (b->data_type() != w->data_type()) return "bias and weight differ in type";
  }
  return "";
}

Expected<ConvParams> conv_params(const onnx::GraphProto& g, const onnx::NodeProto& conv) {
  if (const std::string why = why_not_conv_params(g, conv); !why.empty())
    return invalid_argument("{} '{}': {}", conv.op_type(), conv.name(), why);
  IG_ASSIGN_OR_RETURN(Tensor wt, tensor_from_proto(*weight(g, conv.input(1))));
  ConvParams p{wt.dtype(), wt.shape(), doubles_of(wt), std::vector<double>(wt.shape()[0], 0.0)};
  if (conv.input_size() > 2 && !conv.input(2).empty()) {
    IG_ASSIGN_OR_RETURN(Tensor bt, tensor_from_proto(*weight(g, conv.input(2))));
    p.b = doubles_of(bt);
  }
  return p;
}

// Gives the Conv new weight and bias initializers (the old ones dropped where nothing else
// reads them).
void set_conv_params(onnx::GraphProto& g, onnx::NodeProto& conv, const ConvParams& p) {
  const std::string old_w = conv.input(1);
  const std::string old_b = conv.input_size() > 2 ? conv.input(2) : "";
  conv.set_input(1, add_initializer(g, conv.name() + "_w", p.dtype, p.w_shape, p.w));
  const std::string b =
      add_initializer(g, conv.name() + "_b", p.dtype, {static_cast<int64_t>(p.b.size())}, p.b);
  if (conv.input_size() > 2)
    conv.set_input(2, b);
  else
    conv.add_input(b);
  drop_initializer_if_unread(g, old_w);
  if (!old_b.empty()) drop_initializer_if_unread(g, old_b);
}

double epsilon_of(const onnx::NodeProto& bn) {
  const auto* a = find_attr(bn, "epsilon");
  return static_cast<double>(a ? a->f() : 1e-5f);
}

// Why the BatchNormalization cannot fold into the Conv before it; "" when it can.
std::string why_not_foldable(const onnx::GraphProto& g, const onnx::NodeProto& bn,
                             const onnx::NodeProto** conv) {
  if (bn.op_type() != "BatchNormalization") return "not a BatchNormalization";
  for (int i = 1; i < bn.output_size(); ++i)
    if (!bn.output(i).empty()) return "it has training outputs";
  if (int_attr_or(bn, "training_mode", 0) != 0) return "training_mode";
  if (bn.input_size() != 5) return "not 5 inputs";
  for (int i = 1; i < 5; ++i)
    if (!weight(g, bn.input(i)))
      return fmt::format("input '{}' is not an initializer", bn.input(i));
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (o == bn.input(0)) *conv = &n;
  if (!*conv || (*conv)->op_type() != "Conv") return "no Conv writes its input";
  if (readers(g, bn.input(0)) != 1 || is_graph_output(g, bn.input(0)))
    return "the Conv's output is read elsewhere too";
  return why_not_conv_params(g, **conv);
}

// A reversed permutation of a tensor of any dtype (its own inverse, as insert's transpose2).
Tensor reversed_transpose(const Tensor& t) {
  Shape out_shape(t.shape().rbegin(), t.shape().rend());
  Tensor out(t.dtype(), out_shape);
  const auto in_strides = t.strides();
  const auto out_strides = out.strides();
  const size_t elem = dtype_size(t.dtype());
  const int rank = t.rank();
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t rest = i, j = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t idx = rest / in_strides[static_cast<size_t>(d)];
      rest %= in_strides[static_cast<size_t>(d)];
      j += idx * out_strides[static_cast<size_t>(rank - 1 - d)];
    }
    std::memcpy(out.raw() + static_cast<size_t>(j) * elem, t.raw() + static_cast<size_t>(i) * elem,
                elem);
  }
  return out;
}

// Why the initializer cannot be computed by a constant subgraph of that kind; "" when it can.
std::string why_not_substitutable(const onnx::GraphProto& g, const onnx::TensorProto& init,
                                  const std::string& how) {
  if (!weight(g, init.name())) return "not a float initializer a node owns";
  if (is_graph_output(g, init.name())) return "a graph output";
  if (how == "transpose") return init.dims_size() >= 2 ? "" : "rank below 2";
  if (how != "scale2") return fmt::format("unknown how '{}'", how);
  // Halving must be exact: no value may fall to a subnormal or round.
  auto t = tensor_from_proto(init);
  if (!t.ok() || t->numel() == 0) return "unreadable or empty";
  const auto v = doubles_of(*t);
  std::vector<double> half(v.size());
  for (size_t i = 0; i < v.size(); ++i) half[i] = v[i] * 0.5;
  auto back = stored(t->dtype(), half);
  if (!back.ok()) return "cannot be stored halved";
  const double tiny = t->dtype() == DType::kFloat16 ? 6.103515625e-05
                      : t->dtype() == DType::kFloat32
                          ? static_cast<double>(std::numeric_limits<float>::min())
                          : std::numeric_limits<double>::min();
  for (size_t i = 0; i < v.size(); ++i)
    if ((*back)[i] * 2 != v[i] || (v[i] != 0 && std::abs(half[i]) < tiny))
      return "a value does not halve exactly";
  return "";
}

}  // namespace

std::vector<int64_t> splittable_axes(const ValueType& type) {
  std::vector<int64_t> axes;
  for (int d = type.rank >= 2 ? 1 : 0; d < static_cast<int>(type.dims.size()); ++d)
    if (type.dims[static_cast<size_t>(d)] >= 2) axes.push_back(d);
  return axes;
}

Expected<std::vector<onnx::NodeProto>> split_round_trip(
    onnx::GraphProto& g, int64_t opset, const std::string& value, const ValueType& type,
    const std::string& how, int64_t axis, const std::string& tag, const std::string& out) {
  const auto axes = splittable_axes(type);
  if (std::find(axes.begin(), axes.end(), axis) == axes.end())
    return invalid_argument("insert: {} cannot cut '{}' along axis {} (its dim is not known >= 2)",
                            how, value, axis);
  const int64_t dim = type.dims[static_cast<size_t>(axis)], half = dim / 2;
  const std::string a = tag + "_a", b = tag + "_b";
  std::vector<onnx::NodeProto> nodes;
  const auto ints = [&](const std::string& hint, std::vector<int64_t> v) {
    std::string name = fresh_name(g, tag + hint);
    tensor_to_proto(Tensor::from_vector(v, {static_cast<int64_t>(v.size())}), name,
                    g.add_initializer());
    return name;
  };
  if (how == "split2") {
    onnx::NodeProto split = make_node("Split", tag + "_split", {value}, a);
    split.add_output(b);
    set_int_attr(split, "axis", axis);
    if (opset >= 13) {
      split.add_input(ints("_sizes", {half, dim - half}));
    } else {
      auto* s = split.add_attribute();
      s->set_name("split");
      s->set_type(onnx::AttributeProto::INTS);
      s->add_ints(half);
      s->add_ints(dim - half);
    }
    nodes.push_back(split);
  } else if (how == "slice2") {
    if (opset < 10) return invalid_argument("insert: slice2 needs opset 10 (Slice's inputs)");
    const std::string axes_name = ints("_axes", {axis});
    nodes.push_back(make_node("Slice", tag + "_slice0",
                              {value, ints("_s0", {0}), ints("_e0", {half}), axes_name}, a));
    nodes.push_back(make_node("Slice", tag + "_slice1",
                              {value, ints("_s1", {half}), ints("_e1", {dim}), axes_name}, b));
  } else {
    return invalid_argument("insert: unknown how '{}'", how);
  }
  onnx::NodeProto concat = make_node("Concat", tag + "_concat", {a, b}, out);
  set_int_attr(concat, "axis", axis);
  nodes.push_back(concat);
  return nodes;
}

Status unfold_batch_norm(onnx::ModelProto& model, const Mutation& m) {
  IG_ASSIGN_OR_RETURN(std::string name, mutation_param(m, "node"));
  IG_ASSIGN_OR_RETURN(std::string seed_text, mutation_param(m, "seed"));
  auto* g = model.mutable_graph();
  IG_ASSIGN_OR_RETURN(int i, node_index(*g, name));
  onnx::NodeProto conv = g->node(i);
  auto params = conv_params(*g, conv);
  if (!params.ok()) return params.status().with_context("bnunfold");
  ConvParams p = std::move(*params);
  // Statistics a trained network could have; the Conv absorbs their inverse, so that
  // BN(Conv'(x)) = (Conv'(x) - mean) * s + beta = Conv(x) in exact arithmetic, with
  // s = gamma / sqrt(var + eps), W' = W / s and b' = (b - beta) / s + mean.
  Rng rng(std::stoull(seed_text));
  const size_t channels = p.b.size();
  std::vector<double> gamma(channels), beta(channels), mean(channels), var(channels);
  for (size_t c = 0; c < channels; ++c) {
    gamma[c] = rng.uniform(0.5, 2.0);
    beta[c] = rng.uniform(-0.25, 0.25);
    mean[c] = rng.uniform(-0.5, 0.5);
    var[c] = rng.uniform(0.25, 4.0);
  }
  IG_ASSIGN_OR_RETURN(gamma, stored(p.dtype, gamma));
  IG_ASSIGN_OR_RETURN(beta, stored(p.dtype, beta));
  IG_ASSIGN_OR_RETURN(mean, stored(p.dtype, mean));
  IG_ASSIGN_OR_RETURN(var, stored(p.dtype, var));
  const double eps = static_cast<double>(1e-5f);
  const int64_t per = p.per_channel();
  for (size_t c = 0; c < channels; ++c) {
    const double s = gamma[c] / std::sqrt(var[c] + eps);
    for (int64_t k = 0; k < per; ++k)
      p.w[c * static_cast<size_t>(per) + static_cast<size_t>(k)] /= s;
    p.b[c] = (p.b[c] - beta[c]) / s + mean[c];
  }
  const std::string tag = fresh_name(*g, conv.name() + "_bn");
  const Shape c_shape = {static_cast<int64_t>(channels)};
  onnx::NodeProto bn =
      make_node("BatchNormalization", tag,
                {tag + "_in", add_initializer(*g, tag + "_scale", p.dtype, c_shape, gamma),
                 add_initializer(*g, tag + "_bias", p.dtype, c_shape, beta),
                 add_initializer(*g, tag + "_mean", p.dtype, c_shape, mean),
                 add_initializer(*g, tag + "_var", p.dtype, c_shape, var)},
                conv.output(0));
  auto* e = bn.add_attribute();
  e->set_name("epsilon");
  e->set_type(onnx::AttributeProto::FLOAT);
  e->set_f(1e-5f);
  conv.set_output(0, tag + "_in");
  std::vector<onnx::NodeProto> nodes(g->node().begin(), g->node().end());
  nodes[static_cast<size_t>(i)] = conv;
  nodes.insert(nodes.begin() + i + 1, bn);
  replace_nodes(*g, std::move(nodes));
  // In the graph before the old weights are dropped, so that they count as unread.
  set_conv_params(*g, *g->mutable_node(i), p);
  return Status::Ok();
}

Status fold_batch_norm(onnx::ModelProto& model, const Mutation& m) {
  IG_ASSIGN_OR_RETURN(std::string name, mutation_param(m, "node"));
  auto* g = model.mutable_graph();
  IG_ASSIGN_OR_RETURN(int i, node_index(*g, name));
  const onnx::NodeProto bn = g->node(i);
  const onnx::NodeProto* conv_ptr = nullptr;
  if (const std::string why = why_not_foldable(*g, bn, &conv_ptr); !why.empty())
    return invalid_argument("bnfold: {} '{}': {}", bn.op_type(), bn.name(), why);
  onnx::NodeProto conv = *conv_ptr;
  IG_ASSIGN_OR_RETURN(ConvParams p, conv_params(*g, conv));
  std::vector<std::vector<double>> stats;  // scale, bias, mean, var
  for (int k = 1; k < 5; ++k) {
    IG_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(*find_initializer(*g, bn.input(k))));
    if (t.numel() != static_cast<int64_t>(p.b.size()))
      return invalid_argument("bnfold: '{}' has {} values for {} channels", bn.input(k), t.numel(),
                              p.b.size());
    stats.push_back(doubles_of(t));
  }
  const double eps = epsilon_of(bn);
  const int64_t per = p.per_channel();
  for (size_t c = 0; c < p.b.size(); ++c) {
    const double s = stats[0][c] / std::sqrt(stats[3][c] + eps);
    for (int64_t k = 0; k < per; ++k)
      p.w[c * static_cast<size_t>(per) + static_cast<size_t>(k)] *= s;
    p.b[c] = (p.b[c] - stats[2][c]) * s + stats[1][c];
  }
  conv.set_output(0, bn.output(0));
  std::vector<onnx::NodeProto> nodes;
  for (const auto& n : g->node()) {
    if (n.name() == bn.name()) continue;
    nodes.push_back(n.name() == conv.name() ? conv : n);
  }
  replace_nodes(*g, std::move(nodes));
  for (int k = 1; k < 5; ++k) drop_initializer_if_unread(*g, bn.input(k));
  // The Conv keeps its place, before every reader of the BN's output.
  for (auto& n : *g->mutable_node())
    if (n.name() == conv.name()) set_conv_params(*g, n, p);
  return Status::Ok();
}

Status constant_subgraph(onnx::ModelProto& model, const Mutation& m) {
  IG_ASSIGN_OR_RETURN(std::string name, mutation_param(m, "init"));
  IG_ASSIGN_OR_RETURN(std::string how, mutation_param(m, "how"));
  auto* g = model.mutable_graph();
  const auto* init = find_initializer(*g, name);
  if (!init) return not_found("constsub: no initializer named '{}'", name);
  if (const std::string why = why_not_substitutable(*g, *init, how); !why.empty())
    return invalid_argument("constsub: initializer '{}': {}", name, why);
  IG_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(*init));
  const std::string tag = fresh_name(*g, name + "_" + how);
  onnx::NodeProto node;
  if (how == "transpose") {
    tensor_to_proto(reversed_transpose(t), tag + "_stored", g->add_initializer());
    node = make_node("Transpose", tag, {tag + "_stored"}, name);
    auto* perm = node.add_attribute();
    perm->set_name("perm");
    perm->set_type(onnx::AttributeProto::INTS);
    for (int d = t.rank() - 1; d >= 0; --d) perm->add_ints(d);
  } else {
    std::vector<double> half = doubles_of(t);
    for (double& v : half) v *= 0.5;
    add_initializer(*g, tag + "_stored", t.dtype(), t.shape(), half);
    add_scalar_initializer(*g, tag + "_two", static_cast<int>(t.dtype()), 2.0);
    node = make_node("Mul", tag, {tag + "_stored", tag + "_two"}, name);
  }
  erase_initializer(*g, name);
  std::vector<onnx::NodeProto> nodes = {node};
  nodes.insert(nodes.end(), g->node().begin(), g->node().end());
  replace_nodes(*g, std::move(nodes));
  return Status::Ok();
}

std::vector<std::vector<Mutation>> graph_rewrite_candidates(const onnx::ModelProto& model,
                                                            Rng& rng) {
  const auto& g = model.graph();
  std::vector<const onnx::NodeProto*> unfold, fold;
  for (const auto& n : g.node()) {
    const onnx::NodeProto* conv = nullptr;
    if (n.op_type() == "Conv" && why_not_conv_params(g, n).empty()) unfold.push_back(&n);
    if (n.op_type() == "BatchNormalization" && why_not_foldable(g, n, &conv).empty())
      fold.push_back(&n);
  }
  // Each kind its own list, which the planner draws from as from any other kind.
  std::vector<std::vector<Mutation>> out(3);
  for (const auto* n : unfold)
    out[0].push_back({"bnunfold", {{"node", n->name()}, {"seed", std::to_string(rng.next())}}});
  for (const auto* n : fold) out[1].push_back({"bnfold", {{"node", n->name()}}});
  std::vector<const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer())
    if (weight(g, t.name()) && t.dims_size() >= 1) inits.push_back(&t);
  if (!inits.empty()) {
    const auto& t = *inits[rng.below(inits.size())];
    const std::string how = t.dims_size() >= 2 && rng.below(2) == 0 ? "transpose" : "scale2";
    if (why_not_substitutable(g, t, how).empty())
      out[2].push_back({"constsub", {{"init", t.name()}, {"how", how}}});
  }
  return out;
}

}  // namespace ig

// fuse(node=): primitives fused into the operator they define (issue 57), decompose's other
// direction: x * HardSigmoid(x) (alpha 1/6, beta 1/2) as HardSwish (opset 14), and the LayerNorm
// primitives torch writes before opset 17 (ReduceMean, Sub, Pow 2 or Mul, ReduceMean, Add eps,
// Sqrt, Div, Mul scale[, Add bias]) as LayerNormalization (opset 17), and GELU's erf and tanh
// forms, 0.5 x (1 + erf(x / sqrt 2)) and 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as Gelu
// (opset 20, approximate none or tanh). Equal in exact arithmetic, with the constants as float32
// holds them. A model below the operator's opset is raised first (synth/raise_opset.h).
#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>
#include <set>

#include "model/tensor_proto.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "synth/quantize_util.h"
#include "synth/raise_opset.h"

namespace ig {

namespace {

// Who makes and who reads each value, and the constants (initializers, Constant nodes).
class GraphIndex {
 public:
  explicit GraphIndex(const onnx::GraphProto& g) : g_(g) {
    for (int i = 0; i < g.node_size(); ++i) {
      for (const auto& o : g.node(i).output()) producer_[o] = i;
      for (const auto& in : g.node(i).input()) ++reads_[in];
      const auto& n = g.node(i);
      if (n.op_type() == "Constant" && n.output_size() == 1)
        if (const auto* v = find_attr(n, "value"); v && v->has_t())
          if (auto t = tensor_from_proto(v->t()); t.ok()) constants_.emplace(n.output(0), *t);
    }
    for (const auto& t : g.initializer())
      if (auto v = tensor_from_proto(t); v.ok()) constants_.emplace(t.name(), *v);
  }
  // The node making `value` when its op is `op` and only `readers` inputs (of nodes) read it.
  const onnx::NodeProto* made_by(const std::string& value, const std::string& op,
                                 int readers = 1) const {
    auto p = producer_.find(value);
    auto r = reads_.find(value);
    if (p == producer_.end() || r == reads_.end() || r->second != readers ||
        is_graph_output(g_, value))
      return nullptr;
    const onnx::NodeProto& n = g_.node(p->second);
    return n.op_type() == op && n.domain().empty() ? &n : nullptr;
  }
  const Tensor* constant(const std::string& value) const {
    auto it = constants_.find(value);
    return it == constants_.end() ? nullptr : &it->second;
  }
  // A float scalar constant's value.
  std::optional<double> scalar(const std::string& value) const {
    const Tensor* t = constant(value);
    if (!t || t->numel() != 1 || !is_float(t->dtype())) return std::nullopt;
    return t->as_double(0);
  }

 private:
  const onnx::GraphProto& g_;
  std::map<std::string, int> producer_;
  std::map<std::string, int> reads_;
  std::map<std::string, Tensor> constants_;
};

// What a matched pattern becomes: the fused node, the nodes it replaces (the graph's own, until it
// changes), the opset it needs.
struct Fusion {
  onnx::NodeProto node;
  std::set<const onnx::NodeProto*> replaced;
  int64_t opset = 0;
};

float float_attr(const onnx::NodeProto& n, const std::string& key, float fallback) {
  const auto* a = find_attr(n, key);
  return a ? a->f() : fallback;
}

std::optional<Fusion> hard_swish(const GraphIndex& ix, const onnx::NodeProto& mul) {
  if (mul.op_type() != "Mul" || mul.input_size() != 2) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    const onnx::NodeProto* hs = ix.made_by(mul.input(k), "HardSigmoid");
    if (!hs || hs->input(0) != mul.input(1 - k) || float_attr(*hs, "alpha", 0.2f) != 1.0f / 6.0f ||
        float_attr(*hs, "beta", 0.5f) != 0.5f)
      continue;
    Fusion f{make_node("HardSwish", mul.name(), {hs->input(0)}, mul.output(0)), {hs, &mul}, 14};
    return f;
  }
  return std::nullopt;
}

// A ReduceMean's axes (attribute, or a constant input from opset 18) with keepdims 1.
std::optional<std::vector<int64_t>> mean_axes(const GraphIndex& ix, const onnx::NodeProto& n) {
  if (int_attr_or(n, "keepdims", 1) != 1) return std::nullopt;
  if (const auto* a = find_attr(n, "axes"))
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  if (n.input_size() < 2) return std::nullopt;
  const Tensor* t = ix.constant(n.input(1));
  if (!t || t->rank() != 1) return std::nullopt;
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < t->numel(); ++i) axes.push_back(t->as_int64(i));
  return axes;
}

// The first axis of `axes` when they are [a, rank) of a rank-`rank` value.
std::optional<int64_t> trailing_axis(std::vector<int64_t> axes, int rank) {
  if (rank < 1 || axes.empty()) return std::nullopt;
  for (auto& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - static_cast<int64_t>(axes.size() - i)) return std::nullopt;
  return axes[0];
}

std::optional<Fusion> layer_norm(const GraphIndex& ix, const onnx::NodeProto& last,
                                 const std::map<std::string, ValueType>& types) {
  // [Add bias] <- Mul scale <- Div <- (Sub, Sqrt <- Add eps <- ReduceMean <- Pow 2 | Mul)
  const onnx::NodeProto* add_bias = last.op_type() == "Add" ? &last : nullptr;
  const onnx::NodeProto* mul = nullptr;
  std::string bias;
  if (add_bias) {
    for (int k = 0; k < 2 && !mul; ++k)
      if (ix.constant(add_bias->input(1 - k)) && (mul = ix.made_by(add_bias->input(k), "Mul")))
        bias = add_bias->input(1 - k);
  } else if (last.op_type() == "Mul") {
    mul = &last;
  }
  if (!mul || mul->input_size() != 2) return std::nullopt;
  const onnx::NodeProto* div = nullptr;
  std::string scale;
  for (int k = 0; k < 2 && !div; ++k)
    if (ix.constant(mul->input(1 - k)) && (div = ix.made_by(mul->input(k), "Div")))
      scale = mul->input(1 - k);
  if (!div) return std::nullopt;
  const onnx::NodeProto* sqrt = ix.made_by(div->input(1), "Sqrt");
  const onnx::NodeProto* add_eps = sqrt ? ix.made_by(sqrt->input(0), "Add") : nullptr;
  if (!add_eps) return std::nullopt;
  std::optional<double> eps;
  const onnx::NodeProto* var = nullptr;
  for (int k = 0; k < 2 && !var; ++k)
    if ((eps = ix.scalar(add_eps->input(1 - k)))) var = ix.made_by(add_eps->input(k), "ReduceMean");
  if (!var) return std::nullopt;
  // The centred value: read by the square (Pow, or Mul reading it twice) and by the Div.
  const std::string& centred = div->input(0);
  const onnx::NodeProto* square = ix.made_by(var->input(0), "Pow");
  if (square && (square->input(0) != centred || ix.scalar(square->input(1)) != 2.0))
    return std::nullopt;
  if (!square) {
    square = ix.made_by(var->input(0), "Mul");
    if (!square || square->input(0) != centred || square->input(1) != centred) return std::nullopt;
  }
  const int centred_reads = square->op_type() == "Mul" ? 3 : 2;
  const onnx::NodeProto* sub = ix.made_by(centred, "Sub", centred_reads);
  if (!sub) return std::nullopt;
  const std::string& x = sub->input(0);
  const onnx::NodeProto* mean = ix.made_by(sub->input(1), "ReduceMean");
  if (!mean || mean->input(0) != x) return std::nullopt;
  auto t = types.find(x);
  if (t == types.end() || t->second.elem_type != onnx::TensorProto::FLOAT) return std::nullopt;
  const int rank = t->second.rank;
  const auto axes = mean_axes(ix, *mean);
  const auto var_axes = mean_axes(ix, *var);
  if (!axes || !var_axes) return std::nullopt;
  const auto axis = trailing_axis(*axes, rank);
  if (!axis || trailing_axis(*var_axes, rank) != axis) return std::nullopt;
  // Scale and bias hold the normalized dims exactly: LayerNormalization-17 takes that shape.
  const Shape normalized(t->second.dims.begin() + *axis, t->second.dims.end());
  for (const std::string& c : {scale, bias})
    if (!c.empty() &&
        (ix.constant(c)->shape() != normalized || ix.constant(c)->dtype() != DType::kFloat32))
      return std::nullopt;
  std::vector<std::string> in = {x, scale};
  if (!bias.empty()) in.push_back(bias);
  Fusion f{make_node("LayerNormalization", last.name(), in, last.output(0)), {}, 17};
  set_int_attr(f.node, "axis", *axis);
  auto* e = f.node.add_attribute();
  e->set_name("epsilon");
  e->set_type(onnx::AttributeProto::FLOAT);
  e->set_f(static_cast<float>(*eps));
  for (const auto* n : {mean, sub, square, var, add_eps, sqrt, div, mul, add_bias})
    if (n) f.replaced.insert(n);
  return f;
}

// GELU's primitives as exporters write them. `used` collects the matched nodes.
class GeluMatcher {
 public:
  explicit GeluMatcher(const GraphIndex& ix) : ix_(ix) {}

  std::optional<Fusion> match(const onnx::NodeProto& root) {
    // The root multiplies x, 0.5 and (1 + inner) in some association of two Muls.
    if (root.op_type() != "Mul" || root.input_size() != 2 || !root.domain().empty())
      return std::nullopt;
    for (int k = 0; k < 2; ++k) {
      used_.clear();
      const onnx::NodeProto* m = take(root.input(k), "Mul");
      if (!m || m->input_size() != 2) continue;
      const std::string leaves[3] = {root.input(1 - k), m->input(0), m->input(1)};
      for (int half = 0; half < 3; ++half) {
        if (!is(leaves[half], 0.5)) continue;
        for (int one_plus = 0; one_plus < 3; ++one_plus) {
          if (one_plus == half) continue;
          const std::string& x = leaves[3 - half - one_plus];
          const size_t mark = used_.size();
          if (auto approximate = one_plus_inner(leaves[one_plus], x)) {
            used_.push_back(&root);
            Fusion f{make_node("Gelu", root.name(), {x}, root.output(0)), {}, 20};
            if (*approximate) {
              auto* a = f.node.add_attribute();
              a->set_name("approximate");
              a->set_type(onnx::AttributeProto::STRING);
              a->set_s("tanh");
            }
            f.replaced.insert(used_.begin(), used_.end());
            return f;
          }
          used_.resize(mark);
        }
      }
    }
    return std::nullopt;
  }

 private:
  const onnx::NodeProto* take(const std::string& value, const std::string& op, int readers = 1) {
    const onnx::NodeProto* n = ix_.made_by(value, op, readers);
    if (n) used_.push_back(n);
    return n;
  }
  // A float constant within a few float32 ulps of `want` (exporters compute sqrt(2 / pi) their
  // own ways; as float32 they agree).
  bool is(const std::string& value, double want) const {
    const auto v = ix_.scalar(value);
    return v && std::abs(*v - want) <= 4e-7 * std::abs(want);
  }
  // The other input of a two-input `n` when one is `value`.
  static std::optional<std::string> other(const onnx::NodeProto& n, const std::string& value) {
    if (n.input_size() != 2) return std::nullopt;
    if (n.input(0) == value) return n.input(1);
    if (n.input(1) == value) return n.input(0);
    return std::nullopt;
  }
  // `value` = 1 + erf(x / sqrt 2) (false) or 1 + tanh(...) (true).
  std::optional<bool> one_plus_inner(const std::string& value, const std::string& x) {
    const onnx::NodeProto* add = take(value, "Add");
    if (!add || add->input_size() != 2) return std::nullopt;
    for (int k = 0; k < 2; ++k) {
      if (!is(add->input(1 - k), 1.0)) continue;
      if (erf_of(add->input(k), x)) return false;
      if (tanh_of(add->input(k), x)) return true;
    }
    return std::nullopt;
  }
  bool erf_of(const std::string& value, const std::string& x) {
    const size_t mark = used_.size();
    const onnx::NodeProto* erf = take(value, "Erf");
    if (erf && erf->input_size() == 1) {
      const onnx::NodeProto* div = take(erf->input(0), "Div");
      if (div && div->input_size() == 2 && div->input(0) == x && is(div->input(1), std::sqrt(2.0)))
        return true;
      if (div) used_.pop_back();
      const onnx::NodeProto* mul = take(erf->input(0), "Mul");
      if (mul && other(*mul, x) && is(*other(*mul, x), 1 / std::sqrt(2.0))) return true;
    }
    used_.resize(mark);
    return false;
  }
  // tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)), x^3 as x * x * x in either grouping or Pow(x, 3).
  bool tanh_of(const std::string& value, const std::string& x) {
    const size_t mark = used_.size();
    const onnx::NodeProto* tanh = take(value, "Tanh");
    const onnx::NodeProto* scaled = tanh ? take(tanh->input(0), "Mul") : nullptr;
    if (scaled && scaled->input_size() == 2) {
      for (int k = 0; k < 2; ++k) {
        if (!is(scaled->input(1 - k), std::sqrt(2.0 / std::numbers::pi))) continue;
        const onnx::NodeProto* poly = take(scaled->input(k), "Add");
        const auto cubic = poly ? other(*poly, x) : std::nullopt;
        const onnx::NodeProto* times = cubic ? take(*cubic, "Mul") : nullptr;
        if (times && times->input_size() == 2)
          for (int j = 0; j < 2; ++j)
            if (is(times->input(1 - j), 0.044715) && cube_of(times->input(j), x)) return true;
        break;
      }
    }
    used_.resize(mark);
    return false;
  }
  bool cube_of(const std::string& value, const std::string& x) {
    const size_t mark = used_.size();
    if (const onnx::NodeProto* pow = take(value, "Pow"))
      if (pow->input_size() == 2 && pow->input(0) == x && is(pow->input(1), 3.0)) return true;
    used_.resize(mark);
    const onnx::NodeProto* outer = take(value, "Mul");
    if (outer && outer->input_size() == 2) {
      for (int k = 0; k < 2; ++k) {
        if (outer->input(1 - k) != x) continue;
        const onnx::NodeProto* square = take(outer->input(k), "Mul");
        if (square && square->input_size() == 2 && square->input(0) == x && square->input(1) == x)
          return true;
        if (square) used_.pop_back();
      }
    }
    used_.resize(mark);
    return false;
  }

  const GraphIndex& ix_;
  std::vector<const onnx::NodeProto*> used_;
};

std::optional<Fusion> fusion_at(const onnx::NodeProto& n, const GraphIndex& ix,
                                const std::map<std::string, ValueType>& types) {
  if (n.name().empty()) return std::nullopt;
  if (auto f = hard_swish(ix, n)) return f;
  if (auto f = GeluMatcher(ix).match(n)) return f;
  return layer_norm(ix, n, types);
}

}  // namespace

Status fuse_nodes(onnx::ModelProto& model, const Mutation& m) {
  IG_ASSIGN_OR_RETURN(std::string name, mutation_param(m, "node"));
  IG_ASSIGN_OR_RETURN(int i, node_index(model.graph(), name));
  auto find = [&]() {
    return fusion_at(model.graph().node(i), GraphIndex(model.graph()), value_types(model));
  };
  auto f = find();
  if (!f)
    return invalid_argument("fuse: '{}' ends no x * HardSigmoid, LayerNorm or GELU primitives",
                            name);
  IG_RETURN_IF_ERROR(raise_opset(model, f->opset).with_context("fuse"));
  // The converter may rewrite nodes on its way: the pattern is found again at the new opset.
  IG_ASSIGN_OR_RETURN(i, node_index(model.graph(), name));
  f = find();
  if (!f)
    return invalid_argument("fuse: '{}' no longer matches at opset {}", name, default_opset(model));
  std::vector<onnx::NodeProto> nodes;
  for (int k = 0; k < model.graph().node_size(); ++k) {
    const onnx::NodeProto& n = model.graph().node(k);
    if (k == i)
      nodes.push_back(f->node);
    else if (!f->replaced.count(&n))
      nodes.push_back(n);
  }
  replace_nodes(*model.mutable_graph(), std::move(nodes));
  return Status::Ok();
}

std::vector<Mutation> fuse_candidates(const onnx::ModelProto& model, Rng& rng) {
  (void)rng;  // nothing to draw: the node says it all
  std::vector<Mutation> out;
  const GraphIndex ix(model.graph());
  const auto types = value_types(model);
  for (const auto& n : model.graph().node())
    if (fusion_at(n, ix, types)) out.push_back({"fuse", {{"node", n.name()}}});
  return out;
}

}  // namespace ig

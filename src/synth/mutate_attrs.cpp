// Attribute mutation of Conv, MaxPool/AveragePool and Gemm (kernel, stride, pads, dilation, group,
// channels) with the weights regenerated to fit and the output shapes re-inferred; and the
// exceptional-value mutation, which records inject= specs for the campaign's inputs.
#include <fmt/format.h>
#include <onnx/shape_inference/implementation.h>

#include <cmath>
#include <numeric>
#include <set>

#include "inputs/inputs.h"
#include "inputs/rng.h"
#include "inputs/variant_inputs.h"
#include "model/tensor_proto.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"

namespace ig {

namespace {

onnx::TensorProto* initializer(onnx::GraphProto& g, const std::string& name) {
  for (auto& t : *g.mutable_initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

const onnx::AttributeProto* attr(const onnx::NodeProto& n, const std::string& key) {
  for (const auto& a : n.attribute())
    if (a.name() == key) return &a;
  return nullptr;
}

void set_ints(onnx::NodeProto& n, const std::string& key, int64_t v, size_t count) {
  onnx::AttributeProto* a = nullptr;
  for (auto& x : *n.mutable_attribute())
    if (x.name() == key) a = &x;
  if (!a) a = n.add_attribute();
  a->Clear();
  a->set_name(key);
  if (key == "group") {
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
    return;
  }
  a->set_type(onnx::AttributeProto::INTS);
  for (size_t i = 0; i < count; ++i) a->add_ints(v);
}

// Fresh He-normal weights of `shape` (fan-in from all but the first dim) in the initializer's
// dtype.
Status regenerate(onnx::TensorProto& init, const Shape& shape, uint64_t seed) {
  IG_ASSIGN_OR_RETURN(Tensor old, tensor_from_proto(init));
  int64_t n = 1, fan_in = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] <= 0) return invalid_argument("weights '{}': bad dim {}", init.name(), shape[i]);
    n *= shape[i];
    if (i > 0) fan_in *= shape[i];
  }
  Rng rng(seed);
  std::vector<double> v(static_cast<size_t>(n));
  const double sd = std::sqrt(2.0 / static_cast<double>(fan_in));
  for (double& x : v) x = rng.normal(0, sd);
  IG_ASSIGN_OR_RETURN(Tensor t, tensor_from_doubles(old.dtype(), shape, v));
  const std::string name = init.name();
  tensor_to_proto(t, name, &init);
  return Status::Ok();
}

Status mutate_conv(onnx::GraphProto& g, onnx::NodeProto& n, const std::string& key, int64_t v,
                   uint64_t seed) {
  onnx::TensorProto* w = n.input_size() > 1 ? initializer(g, n.input(1)) : nullptr;
  if (!w || w->dims_size() < 3)
    return invalid_argument("Conv '{}': weights are not an initializer", n.name());
  Shape ws(w->dims().begin(), w->dims().end());
  const size_t spatial = ws.size() - 2;
  const int64_t group = attr(n, "group") ? attr(n, "group")->i() : 1;
  const int64_t channels_in = ws[1] * group;
  if (key == "kernel") {
    for (size_t i = 2; i < ws.size(); ++i) ws[i] = v;
    if (attr(n, "kernel_shape")) set_ints(n, "kernel_shape", v, spatial);
    return regenerate(*w, ws, seed);
  }
  if (key == "group") {
    if (channels_in % v || ws[0] % v)
      return invalid_argument("Conv '{}': group {} does not divide channels", n.name(), v);
    ws[1] = channels_in / v;
    set_ints(n, "group", v, 1);
    return regenerate(*w, ws, seed);
  }
  if (key == "channels") {
    ws[0] = v;
    if (ws[0] % group)
      return invalid_argument("Conv '{}': {} channels and group {}", n.name(), v, group);
    if (n.input_size() > 2 && !n.input(2).empty()) {
      onnx::TensorProto* b = initializer(g, n.input(2));
      if (!b) return invalid_argument("Conv '{}': bias is not an initializer", n.name());
      IG_RETURN_IF_ERROR(regenerate(*b, Shape{v}, seed + 1));
    }
    return regenerate(*w, ws, seed);
  }
  return Status::Ok();
}

Status mutate_gemm(onnx::GraphProto& g, onnx::NodeProto& n, int64_t v, uint64_t seed) {
  onnx::TensorProto* b = n.input_size() > 1 ? initializer(g, n.input(1)) : nullptr;
  if (!b || b->dims_size() != 2)
    return invalid_argument("Gemm '{}': B is not a 2-D initializer", n.name());
  const bool trans = attr(n, "transB") && attr(n, "transB")->i() != 0;
  Shape bs(b->dims().begin(), b->dims().end());
  bs[trans ? 0 : 1] = v;
  if (n.input_size() > 2 && !n.input(2).empty()) {
    onnx::TensorProto* c = initializer(g, n.input(2));
    if (!c) return invalid_argument("Gemm '{}': C is not an initializer", n.name());
    Shape cs(c->dims().begin(), c->dims().end());
    if (!cs.empty()) cs.back() = v;
    IG_RETURN_IF_ERROR(regenerate(*c, cs, seed + 1));
  }
  return regenerate(*b, bs, seed);
}

}  // namespace

// Graph outputs lose their recorded shapes and get the inferred ones; a dim that inference finds
// non-positive means the new attributes do not fit the input.
Status reinfer_shapes(onnx::ModelProto& model) {
  auto* g = model.mutable_graph();
  sync_initializer_inputs(*g);
  g->clear_value_info();
  for (auto& o : *g->mutable_output())
    if (o.type().has_tensor_type()) o.mutable_type()->mutable_tensor_type()->clear_shape();
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& e) {
    return invalid_argument("shape inference: {}", e.what());
  }
  g->clear_value_info();
  for (const auto& o : g->output())
    for (const auto& d : o.type().tensor_type().shape().dim())
      if (d.has_dim_value() && d.dim_value() <= 0)
        return invalid_argument("output '{}' would have an empty dimension", o.name());
  return Status::Ok();
}

Status mutate_attribute(onnx::ModelProto& model, const Mutation& m) {
  auto get = [&](const char* k) -> Expected<std::string> {
    auto it = m.params.find(k);
    if (it == m.params.end()) return invalid_argument("attr: missing parameter '{}'", k);
    return it->second;
  };
  IG_ASSIGN_OR_RETURN(std::string name, get("node"));
  IG_ASSIGN_OR_RETURN(std::string key, get("key"));
  IG_ASSIGN_OR_RETURN(std::string value, get("value"));
  IG_ASSIGN_OR_RETURN(std::string seed, get("seed"));
  const int64_t v = std::stoll(value);
  if (v < (key == "pads" ? 0 : 1)) return invalid_argument("attr: {}={} is out of range", key, v);
  auto* g = model.mutable_graph();
  onnx::NodeProto* n = nullptr;
  for (auto& x : *g->mutable_node())
    if (x.name() == name) n = &x;
  if (!n) return not_found("attr: no node named '{}'", name);
  const std::string& op = n->op_type();
  const size_t spatial = attr(*n, "kernel_shape") ? attr(*n, "kernel_shape")->ints_size() : 2;
  const bool explicit_pads = !attr(*n, "auto_pad") || attr(*n, "auto_pad")->s() == "NOTSET";
  if (key == "stride" && op != "Gemm") {
    set_ints(*n, "strides", v, spatial);
  } else if (key == "pads" && op != "Gemm") {
    if (!explicit_pads) return invalid_argument("attr: '{}' uses auto_pad", name);
    set_ints(*n, "pads", v, 2 * spatial);
  } else if (key == "dilation" && (op == "Conv" || op == "MaxPool")) {
    set_ints(*n, "dilations", v, spatial);
  } else if (key == "kernel" && (op == "MaxPool" || op == "AveragePool")) {
    set_ints(*n, "kernel_shape", v, spatial);
  } else if (op == "Conv" && (key == "kernel" || key == "group" || key == "channels")) {
    IG_RETURN_IF_ERROR(mutate_conv(*g, *n, key, v, std::stoull(seed)));
  } else if (op == "Gemm" && key == "channels") {
    IG_RETURN_IF_ERROR(mutate_gemm(*g, *n, v, std::stoull(seed)));
  } else {
    return invalid_argument("attr: {} has no mutable '{}'", op, key);
  }
  return reinfer_shapes(model);
}

std::vector<Mutation> attribute_candidates(const onnx::ModelProto& model, Rng& rng) {
  const auto& g = model.graph();
  std::vector<Mutation> out;
  for (const auto& n : g.node()) {
    const std::string& op = n.op_type();
    if (op != "Conv" && op != "MaxPool" && op != "AveragePool" && op != "Gemm") continue;
    bool at_output = n.output_size() > 0;
    for (const auto& o : n.output()) at_output &= is_graph_output(g, o);
    // Inside a graph only the group keeps every shape the rest of the graph expects.
    std::vector<std::string> keys;
    if (op == "Conv")
      keys = at_output ? std::vector<std::string>{"kernel",   "stride", "pads",
                                                  "dilation", "group",  "channels"}
                       : std::vector<std::string>{"group"};
    else if (op == "Gemm")
      keys = {"channels"};
    else
      keys = {"kernel", "stride", "pads", "dilation"};
    if (!at_output && op != "Conv") continue;
    const std::string key = keys[rng.below(keys.size())];
    const std::vector<int64_t> values = key == "channels" ? std::vector<int64_t>{1, 3, 8, 16}
                                        : key == "group"  ? std::vector<int64_t>{1, 2, 4}
                                        : key == "pads"   ? std::vector<int64_t>{0, 1, 2}
                                                          : std::vector<int64_t>{1, 2, 3};
    out.push_back({"attr",
                   {{"node", n.name()},
                    {"key", key},
                    {"value", std::to_string(values[rng.below(values.size())])},
                    {"seed", std::to_string(rng.next())}}});
  }
  return out;
}

Status inject_input(onnx::ModelProto& model, const Mutation& m) {
  auto in = m.params.find("input");
  auto what = m.params.find("inject");
  if (in == m.params.end() || what == m.params.end())
    return invalid_argument("inject: needs parameters 'input' and 'inject'");
  IG_RETURN_IF_ERROR(parse_injection(what->second).status());
  bool found = false;
  for (const auto& i : model.graph().input()) found |= i.name() == in->second;
  if (!found) return not_found("inject: no graph input named '{}'", in->second);
  auto specs = variant_inputs(model);
  std::string& spec = specs[in->second];
  if (spec.empty()) spec = "random:uniform";
  spec += ",inject=" + what->second;
  set_variant_inputs(model, specs);
  return Status::Ok();
}

std::vector<Mutation> inject_candidates(const onnx::ModelProto& model, Rng& rng) {
  static const std::vector<std::string> kinds = {"nan", "inf", "-inf", "denormal", "-zero", "huge"};
  std::vector<Mutation> out;
  for (const auto* i : runtime_inputs(model.graph())) {
    if (!is_float_type(i->type().tensor_type().elem_type())) continue;
    const std::string where = rng.below(2) ? "0" : "0.1";
    out.push_back(
        {"inject",
         {{"input", i->name()}, {"inject", kinds[rng.below(kinds.size())] + "@" + where}}});
  }
  return out;
}

}  // namespace ig

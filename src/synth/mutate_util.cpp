#include "synth/mutate_util.h"

#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <set>

#include "inputs/rng.h"
#include "model/tensor_proto.h"
#include "synth/mutate.h"

namespace ig {

namespace {

void note_type(std::map<std::string, ValueType>& out, const onnx::ValueInfoProto& vi) {
  if (!vi.type().has_tensor_type()) return;
  const auto& tt = vi.type().tensor_type();
  ValueType t{tt.elem_type(), tt.has_shape() ? tt.shape().dim_size() : -1, {}};
  if (tt.has_shape())
    for (const auto& d : tt.shape().dim())
      t.dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
  out[vi.name()] = std::move(t);
}

// Makes every node input named `from` read `to`, except in nodes named in `skip`.
void rename_uses(onnx::GraphProto& g, const std::string& from, const std::string& to,
                 const std::set<std::string>& skip) {
  for (auto& n : *g.mutable_node()) {
    if (skip.count(n.name())) continue;
    for (auto& in : *n.mutable_input())
      if (in == from) in = to;
  }
}

onnx::NodeProto cast_node(const std::string& name, const std::string& in, const std::string& out,
                          int to) {
  onnx::NodeProto n;
  n.set_op_type("Cast");
  n.set_name(name);
  n.add_input(in);
  n.add_output(out);
  auto* a = n.add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(to);
  return n;
}

}  // namespace

std::map<std::string, ValueType> value_types(const onnx::ModelProto& model) {
  onnx::ModelProto copy = model;
  try {
    onnx::shape_inference::InferShapes(copy);
  } catch (const std::exception&) {
    // Partial information is still useful: the planner only picks values it can type.
  }
  std::map<std::string, ValueType> out;
  const auto& g = copy.graph();
  for (const auto& vi : g.input()) note_type(out, vi);
  for (const auto& vi : g.value_info()) note_type(out, vi);
  for (const auto& vi : g.output()) note_type(out, vi);
  for (const auto& t : g.initializer())
    out[t.name()] = {t.data_type(), t.dims_size(), {t.dims().begin(), t.dims().end()}};
  return out;
}

Expected<std::string> mutation_param(const Mutation& m, const std::string& key) {
  auto it = m.params.find(key);
  if (it == m.params.end()) return invalid_argument("{}: missing parameter '{}'", m.kind, key);
  return it->second;
}

bool is_float_type(int t) {
  return t == onnx::TensorProto::FLOAT || t == onnx::TensorProto::FLOAT16 ||
         t == onnx::TensorProto::DOUBLE;
}

const std::vector<std::string>& activation_ops() {
  static const std::vector<std::string> ops = {"Relu", "Sigmoid",  "Tanh", "Softplus",
                                               "Elu",  "Softsign", "Selu", "LeakyRelu"};
  return ops;
}

bool is_activation(const std::string& op) {
  const auto& ops = activation_ops();
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

bool is_swappable_pool(const onnx::NodeProto& n) {
  return (n.op_type() == "MaxPool" || n.op_type() == "AveragePool") && n.output_size() == 1;
}

Expected<int> node_index(const onnx::GraphProto& g, const std::string& name) {
  for (int i = 0; i < g.node_size(); ++i)
    if (g.node(i).name() == name) return i;
  return not_found("no node named '{}'", name);
}

bool is_graph_output(const onnx::GraphProto& g, const std::string& value) {
  for (const auto& o : g.output())
    if (o.name() == value) return true;
  return false;
}

std::vector<const onnx::ValueInfoProto*> runtime_inputs(const onnx::GraphProto& g) {
  std::set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  std::vector<const onnx::ValueInfoProto*> out;
  for (const auto& in : g.input())
    if (!inits.count(in.name())) out.push_back(&in);
  return out;
}

std::string fresh_name(const onnx::GraphProto& g, const std::string& hint) {
  std::set<std::string> used;
  for (const auto& n : g.node()) {
    used.insert(n.name());
    for (const auto& o : n.output()) used.insert(o);
  }
  for (const auto& t : g.initializer()) used.insert(t.name());
  for (const auto& i : g.input()) used.insert(i.name());
  std::string name = hint;
  // Inserted nodes take names "<tag>_<k>" and "<tag>_out", so the tag itself must be fresh too.
  for (int k = 1; used.count(name) || used.count(name + "_out") || used.count(name + "_0"); ++k)
    name = hint + "_" + std::to_string(k);
  return name;
}

void add_scalar_initializer(onnx::GraphProto& g, const std::string& name, int elem_type, double v) {
  auto t = tensor_from_doubles(static_cast<DType>(elem_type), Shape{}, {v});
  tensor_to_proto(*t, name, g.add_initializer());  // float dtypes always convert
}

Status splice_after(onnx::GraphProto& g, const std::string& value, const std::string& out,
                    const std::vector<onnx::NodeProto>& nodes) {
  if (is_graph_output(g, value))
    return invalid_argument("cannot insert after graph output '{}'", value);
  int after = -1;  // graph inputs and initializers: insert in front
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& o : g.node(i).output())
      if (o == value) after = i;
  std::set<std::string> skip;
  for (const auto& n : nodes) skip.insert(n.name());
  rename_uses(g, value, out, skip);
  std::vector<onnx::NodeProto> all(g.node().begin(), g.node().end());
  all.insert(all.begin() + (after + 1), nodes.begin(), nodes.end());
  replace_nodes(g, std::move(all));
  return Status::Ok();
}

void replace_nodes(onnx::GraphProto& g, std::vector<onnx::NodeProto> nodes) {
  g.clear_node();
  for (auto& n : nodes) *g.add_node() = std::move(n);
}

void sync_initializer_inputs(onnx::GraphProto& g) {
  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = &t;
  for (auto& in : *g.mutable_input()) {
    auto it = inits.find(in.name());
    if (it == inits.end()) continue;
    auto* tt = in.mutable_type()->mutable_tensor_type();
    tt->set_elem_type(it->second->data_type());
    auto* shape = tt->mutable_shape();
    shape->clear_dim();
    for (int64_t d : it->second->dims()) shape->add_dim()->set_dim_value(d);
  }
}

Status cast_model(onnx::ModelProto& model, const std::string& to) {
  const int target = to == "float16"  ? onnx::TensorProto::FLOAT16
                     : to == "double" ? onnx::TensorProto::DOUBLE
                                      : 0;
  if (target == 0) return invalid_argument("cast: 'to' must be float16 or double, not '{}'", to);
  auto* g = model.mutable_graph();
  for (auto& init : *g->mutable_initializer()) {
    if (init.data_type() != onnx::TensorProto::FLOAT) continue;
    IG_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(init));
    std::vector<double> v(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.as_double(i);
    IG_ASSIGN_OR_RETURN(Tensor c, tensor_from_doubles(static_cast<DType>(target), t.shape(), v));
    const std::string name = init.name();  // tensor_to_proto clears the proto first
    tensor_to_proto(c, name, &init);
  }
  std::set<std::string> inits;
  for (const auto& t : g->initializer()) inits.insert(t.name());
  std::vector<onnx::NodeProto> front, back;
  for (const auto& in : g->input()) {
    if (inits.count(in.name()) || in.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT)
      continue;
    const std::string cast = fresh_name(*g, in.name() + "_to_" + to);
    rename_uses(*g, in.name(), cast + "_out", {});
    front.push_back(cast_node(cast, in.name(), cast + "_out", target));
  }
  for (const auto& o : g->output()) {
    if (o.type().tensor_type().elem_type() != onnx::TensorProto::FLOAT) continue;
    const std::string wide = fresh_name(*g, o.name() + "_in_" + to);
    for (auto& n : *g->mutable_node())
      for (auto& out : *n.mutable_output())
        if (out == o.name()) out = wide + "_out";
    rename_uses(*g, o.name(), wide + "_out", {});
    back.push_back(cast_node(wide, wide + "_out", o.name(), onnx::TensorProto::FLOAT));
  }
  if (front.empty() && back.empty() && inits.empty())
    return invalid_argument("cast: the model has no float32 inputs, outputs or initializers");
  std::vector<onnx::NodeProto> all(front);
  all.insert(all.end(), g->node().begin(), g->node().end());
  all.insert(all.end(), back.begin(), back.end());
  replace_nodes(*g, std::move(all));
  g->clear_value_info();  // recorded float32 intermediate types no longer hold
  sync_initializer_inputs(*g);
  return Status::Ok();
}

}  // namespace ig

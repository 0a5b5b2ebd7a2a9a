#include "model/subgraph.h"

#include <map>

namespace ig {

namespace {

std::string node_label(const onnx::NodeProto& n) { return n.op_type() + " '" + n.name() + "'"; }

// Values a node's bodies read from enclosing scopes: read inside, defined nowhere inside.
void outer_reads(const onnx::GraphProto& body, std::set<std::string>& reads) {
  std::set<std::string> defined;
  for (const auto& in : body.input()) defined.insert(in.name());
  for (const auto& t : body.initializer()) defined.insert(t.name());
  for (const auto& n : body.node())
    for (const auto& o : n.output()) defined.insert(o);
  std::set<std::string> inner;
  for (const auto& n : body.node()) {
    for (const auto& in : n.input()) inner.insert(in);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) outer_reads(a.g(), inner);
      for (const auto& g : a.graphs()) outer_reads(g, inner);
    }
  }
  for (const auto& v : inner)
    if (!v.empty() && !defined.count(v)) reads.insert(v);
}

}  // namespace

Expected<onnx::ModelProto> subgraph_model(const onnx::ModelProto& parent,
                                          const std::set<std::string>& produced,
                                          const std::vector<onnx::ValueInfoProto>& inputs,
                                          const std::vector<onnx::ValueInfoProto>& outputs,
                                          const std::string& graph_name, bool keep_subgraphs) {
  const auto& g = parent.graph();
  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = &t;
  std::set<std::string> available;
  for (const auto& in : inputs) available.insert(in.name());
  // Not a copy of the parent: its metadata (a variant's lineage and inputs) does not describe
  // this model, and copying its graph to clear it would copy every weight.
  onnx::ModelProto out;
  out.set_ir_version(parent.ir_version());
  *out.mutable_opset_import() = parent.opset_import();
  *out.mutable_functions() = parent.functions();
  out.set_producer_name("infergap");
  onnx::GraphProto* sub = out.mutable_graph();
  sub->set_name(graph_name);
  std::set<std::string> copied;
  for (const auto& n : g.node()) {
    bool keep = false;
    for (const auto& o : n.output()) keep = keep || produced.count(o);
    if (!keep) continue;
    std::set<std::string> reads(n.input().begin(), n.input().end());
    for (const auto& a : n.attribute()) {
      if (!a.has_g() && a.graphs_size() == 0) continue;
      if (!keep_subgraphs) return invalid_argument("{} holds a subgraph", node_label(n));
      if (a.has_g()) outer_reads(a.g(), reads);
      for (const auto& body : a.graphs()) outer_reads(body, reads);
    }
    for (const auto& in : reads) {
      if (in.empty() || available.count(in)) continue;
      auto it = inits.find(in);
      if (it == inits.end())
        return invalid_argument("{} reads '{}', which is neither fed nor computed here",
                                node_label(n), in);
      if (copied.insert(in).second) *sub->add_initializer() = *it->second;
    }
    *sub->add_node() = n;
    for (const auto& o : n.output())
      if (!o.empty()) available.insert(o);
  }
  for (const auto& in : inputs) *sub->add_input() = in;
  for (const auto& o : outputs) {
    if (!available.count(o.name()))
      return invalid_argument("output '{}' is not computed by the kept nodes", o.name());
    *sub->add_output() = o;
  }
  return out;
}

onnx::ValueInfoProto tensor_value_info(const std::string& name, DType dtype, const Shape& shape) {
  onnx::ValueInfoProto vi;
  vi.set_name(name);
  auto* tt = vi.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<int>(dtype));
  auto* s = tt->mutable_shape();
  for (int64_t d : shape) s->add_dim()->set_dim_value(d);
  return vi;
}

}  // namespace ig

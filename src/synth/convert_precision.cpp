#include "synth/convert_precision.h"

#include <onnx/defs/schema.h>

#include <algorithm>

#include "model/tensor_proto.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "synth/quantize_model.h"
#include "synth/quantize_util.h"
#include "tensor/convert.h"

namespace ig {

namespace {

constexpr int kF32 = onnx::TensorProto::FLOAT;

const char* short_name(int t) {
  return t == onnx::TensorProto::FLOAT16 ? "fp16" : t == kF32 ? "fp32" : "bf16";
}

// Whether the k-th formal parameter in `formals` takes tensors of `want` ("tensor(float16)").
bool accepts(const onnx::OpSchema& s, const std::vector<onnx::OpSchema::FormalParameter>& formals,
             size_t k, const std::string& want) {
  if (formals.empty()) return false;
  const std::string& ts = formals[std::min(k, formals.size() - 1)].GetTypeStr();
  for (const auto& c : s.typeConstraintParams())
    if (c.type_param_str == ts)
      return std::find(c.allowed_type_strs.begin(), c.allowed_type_strs.end(), want) !=
             c.allowed_type_strs.end();
  return ts == want;
}

Status convert_attr_tensor(onnx::TensorProto& t, DType to) {
  if (t.data_type() != kF32) return Status::Ok();
  IG_ASSIGN_OR_RETURN(Tensor v, tensor_from_proto(t));
  const std::string name = t.name();
  tensor_to_proto(convert_float_tensor(v, to), name, &t);
  return Status::Ok();
}

void set_tensor_attr(onnx::NodeProto& n, const std::string& key, const Tensor& t) {
  auto* a = n.add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::TENSOR);
  tensor_to_proto(t, "", a->mutable_t());
}

// The attributes that fix a node's float32 output type, moved to `to`.
Status retarget_attributes(onnx::NodeProto& n, DType to) {
  const int target = static_cast<int>(to);
  auto* attrs = n.mutable_attribute();
  bool has_value = false, has_dtype = false;
  for (int i = attrs->size() - 1; i >= 0; --i) {
    auto& a = *attrs->Mutable(i);
    if (n.op_type() == "Cast" && a.name() == "to" && a.i() == kF32) a.set_i(target);
    if (a.name() == "dtype" && a.type() == onnx::AttributeProto::INT) {
      has_dtype = true;
      if (a.i() == kF32) a.set_i(target);
    }
    if (a.name() == "value" && a.has_t()) {
      has_value = true;
      IG_RETURN_IF_ERROR(convert_attr_tensor(*a.mutable_t(), to));
    }
    if (n.op_type() == "Constant" && (a.name() == "value_float" || a.name() == "value_floats")) {
      std::vector<float> v(a.floats().begin(), a.floats().end());
      const bool scalar = a.name() == "value_float";
      if (scalar) v = {a.f()};
      const Tensor t =
          Tensor::from_vector(v, scalar ? Shape{} : Shape{static_cast<int64_t>(v.size())});
      attrs->DeleteSubrange(i, 1);
      set_tensor_attr(n, "value", convert_float_tensor(t, to));
    }
  }
  if (n.op_type() == "ConstantOfShape" && !has_value)  // the default is a float32 zero
    set_tensor_attr(n, "value", convert_float_tensor(Tensor::from_vector<float>({0}, {1}), to));
  if ((n.op_type() == "RandomNormal" || n.op_type() == "RandomUniform") && !has_dtype)
    set_int_attr(n, "dtype", target);
  return Status::Ok();
}

}  // namespace

Expected<DType> parse_precision(const std::string& text) {
  if (text == "fp16" || text == "float16") return DType::kFloat16;
  if (text == "bf16" || text == "bfloat16") return DType::kBFloat16;
  return invalid_argument("--to must be fp16 or bf16, not '{}'", text);
}

Expected<ConvertResult> convert_precision(const onnx::ModelProto& parent, const ConvertOptions& o) {
  if (o.to != DType::kFloat16 && o.to != DType::kBFloat16)
    return invalid_argument("convert: the target must be float16 or bfloat16");
  const int target = static_cast<int>(o.to);
  const std::string want =
      target == onnx::TensorProto::FLOAT16 ? "tensor(float16)" : "tensor(bfloat16)";
  for (const auto& n : parent.graph().node())
    for (const auto& a : n.attribute())
      if (a.has_g() || a.graphs_size() > 0)
        return invalid_argument(
            "{}: node '{}' ({}) holds a subgraph; control flow is not converted", o.label, n.name(),
            n.op_type());
  for (const auto& b : o.block) {
    bool found = false;
    for (const auto& n : parent.graph().node()) found |= n.name() == b || n.op_type() == b;
    if (!found)
      return invalid_argument("--block {}: {} has no node or op type of that name", b, o.label);
  }
  ConvertResult r;
  r.model = parent;
  if (o.to == DType::kBFloat16)
    IG_RETURN_IF_ERROR(raise_opset(r.model, 13, &r.opset_raised).with_context(o.label));
  auto* g = r.model.mutable_graph();
  const auto types = value_types(r.model);
  auto f32 = [&](const std::string& v) {
    auto it = types.find(v);
    return !v.empty() && it != types.end() && it->second.elem_type == kF32;
  };
  std::map<std::string, int64_t> opsets;
  for (const auto& op : r.model.opset_import())
    opsets[op.domain() == "ai.onnx" ? "" : op.domain()] = op.version();
  std::set<std::string> inits, graph_inputs;
  for (const auto& t : g->initializer()) inits.insert(t.name());
  for (const auto& v : g->input()) graph_inputs.insert(v.name());
  // 1. The type each node wants in each of its float32 slots (0: not a float32 slot).
  const int n_nodes = g->node_size();
  std::vector<std::vector<int>> want_in(n_nodes), want_out(n_nodes);
  std::map<std::string, int> home;  // the type a value is produced in
  for (int i = 0; i < n_nodes; ++i) {
    const auto& n = g->node(i);
    const bool blocked = is_blocked(n, o.block);
    const onnx::OpSchema* s =
        blocked ? nullptr
                : onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(opsets[n.domain()]),
                                                 n.domain());
    bool kept = false, converted = false;
    auto slot = [&](const std::string& v, const std::vector<onnx::OpSchema::FormalParameter>& f,
                    size_t k) {
      if (!f32(v)) return 0;
      const int t = s && accepts(*s, f, k, want) ? target : kF32;
      (t == kF32 ? kept : converted) = true;
      return t;
    };
    static const std::vector<onnx::OpSchema::FormalParameter> none;
    for (int k = 0; k < n.input_size(); ++k)
      want_in[i].push_back(slot(n.input(k), s ? s->inputs() : none, k));
    for (int k = 0; k < n.output_size(); ++k) {
      want_out[i].push_back(slot(n.output(k), s ? s->outputs() : none, k));
      if (want_out[i].back() != 0) home[n.output(k)] = want_out[i].back();
    }
    if (kept)
      r.kept[n.name()] = blocked ? "blocked"
                         : !s    ? "no ONNX schema"
                              : fmt::format("its opset {} schema takes no {}", opsets[n.domain()],
                                            short_name(target));
    if (converted) r.converted_nodes.push_back(n.name());
  }
  for (const auto& v : g->input())
    if (f32(v.name())) home[v.name()] = o.keep_io ? kF32 : target;
  // 2. Initializers: converted in place when every reader wants the target, else a converted copy.
  std::map<std::string, std::set<int>> init_wants;
  for (int i = 0; i < n_nodes; ++i)
    for (int k = 0; k < g->node(i).input_size(); ++k)
      if (want_in[i][static_cast<size_t>(k)] != 0)
        init_wants[g->node(i).input(k)].insert(want_in[i][static_cast<size_t>(k)]);
  NameSet names(*g);
  std::map<std::pair<std::string, int>, std::string> as_type;  // (value, type) -> value
  const int n_inits = g->initializer_size();
  for (int i = 0; i < n_inits; ++i) {
    auto* t = g->mutable_initializer(i);
    const std::string name = t->name();
    if (t->data_type() != kF32) continue;
    const bool is_input = graph_inputs.count(name) != 0;
    if (!is_input) home[name] = kF32;
    if (is_input ? home[name] != target : !init_wants[name].count(target)) continue;
    IG_ASSIGN_OR_RETURN(Tensor v, tensor_from_proto(*t, o.base_dir));
    const Tensor c = convert_float_tensor(v, o.to);
    if (is_input || !init_wants[name].count(kF32)) {
      tensor_to_proto(c, name, t);
      home[name] = target;
    } else {
      const std::string copy = names.take(name + "_" + short_name(target));
      tensor_to_proto(c, copy, g->add_initializer());
      as_type[{name, target}] = copy;
      home[name] = kF32;
    }
    ++r.initializers;
  }
  // 3. Graph outputs whose producer computes in another type write a renamed value, cast back.
  std::map<std::string, std::string> alias;
  std::map<std::string, std::vector<onnx::NodeProto>> after;  // value -> Casts placed after it
  const int io_type = o.keep_io ? kF32 : target;
  for (auto& out : *g->mutable_output()) {
    if (!f32(out.name())) continue;
    out.mutable_type()->mutable_tensor_type()->set_elem_type(io_type);
    const std::string& v = out.name();
    if (home[v] == io_type || graph_inputs.count(v)) continue;
    const std::string w = names.take(v + "_" + short_name(home[v]));
    alias[v] = w;
    home[w] = home[v];
    after[w].push_back(make_node("Cast", names.take(v + "_Cast"), {w}, v));
    set_int_attr(after[w].back(), "to", io_type);
    ++r.casts;
  }
  auto read_as = [&](const std::string& v, int type) -> std::string {
    std::string src = alias.count(v) ? alias[v] : v;
    if (home[src] == type) return src;
    auto [it, fresh] = as_type.try_emplace({src, type}, "");
    if (!fresh) return it->second;
    it->second = names.take(src + "_" + short_name(type));
    auto& list = after[graph_inputs.count(src) || inits.count(src) ? "" : src];
    list.push_back(
        make_node("Cast", names.take(src + "_Cast_" + short_name(type)), {src}, it->second));
    set_int_attr(list.back(), "to", type);
    ++r.casts;
    return it->second;
  };
  // 4. Every node reads its inputs in the type it wants and writes the (aliased) outputs.
  std::vector<onnx::NodeProto> nodes(g->node().begin(), g->node().end());
  for (int i = 0; i < n_nodes; ++i) {
    auto& n = nodes[static_cast<size_t>(i)];
    for (int k = 0; k < n.input_size(); ++k)
      if (const int t = want_in[i][static_cast<size_t>(k)]; t != 0)
        n.set_input(k, read_as(n.input(k), t));
    bool retarget = false;
    for (int k = 0; k < n.output_size(); ++k) {
      retarget |= want_out[i][static_cast<size_t>(k)] == target;
      if (auto it = alias.find(n.output(k)); it != alias.end()) n.set_output(k, it->second);
    }
    if (retarget) IG_RETURN_IF_ERROR(retarget_attributes(n, o.to));
  }
  g->clear_node();
  for (auto& c : after[""]) *g->add_node() = c;
  for (auto& n : nodes) {
    const std::vector<std::string> outs(n.output().begin(), n.output().end());
    *g->add_node() = std::move(n);
    for (const auto& out : outs)
      for (auto& c : after[out]) *g->add_node() = c;
  }
  for (auto& v : *g->mutable_input())
    if (f32(v.name())) v.mutable_type()->mutable_tensor_type()->set_elem_type(home[v.name()]);
  for (auto& vi : *g->mutable_value_info())
    if (f32(vi.name()) && home.count(vi.name()))
      vi.mutable_type()->mutable_tensor_type()->set_elem_type(home[vi.name()]);
  if (r.converted_nodes.empty() && r.initializers == 0)
    return invalid_argument("{}: nothing to convert: no float32 value outside --block", o.label);
  stamp_lineage(r.model, Lineage{content_hash(parent), 0, {{"convert", convert_params(o)}}});
  if (Status st = check_variant(r.model); !st.ok())
    return internal_error("{}: the converted model fails the ONNX checker: {}", o.label,
                          st.message());
  return r;
}

std::map<std::string, std::string> convert_params(const ConvertOptions& o) {
  std::string block;
  for (const auto& b : o.block) block += (block.empty() ? "" : ",") + b;
  return {{"to", o.to == DType::kBFloat16 ? "bf16" : "fp16"},
          {"keep_io", o.keep_io ? "1" : "0"},
          {"block", block}};
}

Expected<ConvertOptions> convert_options_from(const std::map<std::string, std::string>& p) {
  ConvertOptions o;
  auto to = p.find("to");
  IG_ASSIGN_OR_RETURN(o.to, parse_precision(to == p.end() ? "" : to->second));
  auto io = p.find("keep_io");
  o.keep_io = io != p.end() && io->second == "1";
  if (auto b = p.find("block"); b != p.end()) {
    size_t start = 0;
    while (start <= b->second.size()) {
      const size_t end = std::min(b->second.find(',', start), b->second.size());
      if (end > start) o.block.push_back(b->second.substr(start, end - start));
      start = end + 1;
    }
  }
  return o;
}

}  // namespace ig

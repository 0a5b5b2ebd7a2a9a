// Rewrites that make OpenCV's ONNX importer accept a model without changing its computation.
#include <onnx/onnx_pb.h>

#include <unordered_map>
#include <unordered_set>

#include "backends/opencv/opencv_backend.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"

namespace ig {

namespace {

// Inputs fixed before the run, by value name: initializers and Constant nodes' tensors.
std::unordered_map<std::string, Tensor> constant_values(const onnx::GraphProto& g) {
  std::unordered_map<std::string, Tensor> out;
  auto add = [&](const std::string& name, const onnx::TensorProto& t) {
    // Only small tensors are ever moved into attributes (bounds, axes).
    if (t.raw_data().size() > 1024 || t.data_location() == onnx::TensorProto::EXTERNAL) return;
    auto v = tensor_from_proto(t);
    if (v.ok()) out.emplace(name, std::move(*v));
  };
  for (const auto& t : g.initializer()) add(t.name(), t);
  for (const auto& n : g.node()) {
    if (n.op_type() != "Constant" || !n.domain().empty() || n.output_size() != 1) continue;
    for (const auto& a : n.attribute()) {
      if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR) add(n.output(0), a.t());
    }
  }
  return out;
}

// Opset 11 moved Clip's bounds and opset 13 Squeeze/Unsqueeze's axes from attributes to inputs;
// OpenCV 4.6 reads only the attribute forms ("node_proto.input_size() == 1"). A constant input
// becomes the attribute it replaced: the same computation in the form OpenCV parses.
void inputs_to_attributes(onnx::GraphProto* g) {
  const auto constants = constant_values(*g);
  auto constant = [&](const onnx::NodeProto& n, int i) -> const Tensor* {
    if (i >= n.input_size() || n.input(i).empty()) return nullptr;
    auto it = constants.find(n.input(i));
    return it == constants.end() ? nullptr : &it->second;
  };
  for (auto& n : *g->mutable_node()) {
    if (!n.domain().empty()) continue;
    if (n.op_type() == "Clip" && n.input_size() > 1) {
      std::vector<std::pair<const char*, float>> bounds;
      bool all_constant = true;
      for (int i = 1; i < n.input_size(); ++i) {
        if (n.input(i).empty()) continue;  // an omitted bound
        const Tensor* t = constant(n, i);
        if (!t || t->dtype() != DType::kFloat32 || t->numel() != 1) {
          all_constant = false;
          break;
        }
        bounds.emplace_back(i == 1 ? "min" : "max", t->data<float>()[0]);
      }
      if (!all_constant) continue;
      for (const auto& [name, value] : bounds) {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::FLOAT);
        a->set_f(value);
      }
      n.mutable_input()->DeleteSubrange(1, n.input_size() - 1);
    } else if ((n.op_type() == "Squeeze" || n.op_type() == "Unsqueeze") && n.input_size() == 2) {
      const Tensor* axes = constant(n, 1);
      if (!axes || axes->dtype() != DType::kInt64) continue;
      auto* a = n.add_attribute();
      a->set_name("axes");
      a->set_type(onnx::AttributeProto::INTS);
      for (int64_t i = 0; i < axes->numel(); ++i) a->add_ints(axes->data<int64_t>()[i]);
      n.mutable_input()->DeleteSubrange(1, 1);
    }
  }
}

}  // namespace

Expected<std::string> opencv_compatible_onnx(const std::string& path) {
  auto proto = read_model_proto(path);
  if (!proto.ok()) return proto.status();
  onnx::GraphProto* g = proto->mutable_graph();
  std::unordered_map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g->initializer()) inits[t.name()] = &t;
  // Identity of an initializer: OpenCV 4.6 rejects it; the same tensor under the output's name is
  // exactly what Identity yields.
  std::unordered_set<std::string> graph_outputs;
  for (const auto& o : g->output()) graph_outputs.insert(o.name());
  std::vector<onnx::TensorProto> copies;
  for (int i = g->node_size() - 1; i >= 0; --i) {
    const onnx::NodeProto& n = g->node(i);
    if (n.op_type() != "Identity" || n.input_size() != 1 || !inits.count(n.input(0)) ||
        graph_outputs.count(n.output(0))) {
      continue;
    }
    onnx::TensorProto copy = *inits[n.input(0)];
    copy.set_name(n.output(0));
    copies.push_back(std::move(copy));
    g->mutable_node()->DeleteSubrange(i, 1);
  }
  for (auto& c : copies) *g->add_initializer() = std::move(c);
  // Conv without kernel_shape (optional in ONNX: the weights' dims say it): OpenCV requires it.
  for (auto& n : *g->mutable_node()) {
    if (n.op_type() != "Conv" || n.input_size() < 2 || !inits.count(n.input(1))) continue;
    bool has = false;
    for (const auto& a : n.attribute()) has = has || a.name() == "kernel_shape";
    const onnx::TensorProto* w = inits[n.input(1)];
    if (has || w->dims_size() < 3) continue;
    auto* a = n.add_attribute();
    a->set_name("kernel_shape");
    a->set_type(onnx::AttributeProto::INTS);
    for (int d = 2; d < w->dims_size(); ++d) a->add_ints(w->dims(d));
  }
  inputs_to_attributes(g);
  std::string bytes;
  if (!proto->SerializeToString(&bytes)) return internal_error("{}: cannot serialize", path);
  return bytes;
}

}  // namespace ig

#include "backends/opencv/opencv_backend.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace ig {

namespace {

Expected<cv::Mat> to_mat(const std::string& name, const Tensor& t) {
  if (t.dtype() != DType::kFloat32) {
    return unsupported("opencv: input '{}' is {}; OpenCV DNN takes fp32 inputs", name,
                       t.describe());
  }
  std::vector<int> sizes(t.shape().begin(), t.shape().end());
  if (sizes.empty()) sizes = {1};
  cv::Mat m(static_cast<int>(sizes.size()), sizes.data(), CV_32F);
  std::memcpy(m.data, t.raw(), t.nbytes());
  return m;
}

// A blob as a tensor of the shape ONNX declares for the value when known (OpenCV keeps its own
// layouts of the same elements, e.g. 4-D where ONNX has 2-D).
Expected<Tensor> to_tensor(const cv::Mat& m, const std::string& value, const Shape& declared) {
  // Quantized layers can hand back 8-bit blobs; reading them as fp32 would read past their end.
  if (m.depth() != CV_32F) {
    return unsupported(
        "opencv: value '{}' comes back as an OpenCV blob of depth {} (not CV_32F); "
        "the adapter reads fp32 blobs only",
        value, m.depth());
  }
  Shape shape;
  for (int i = 0; i < m.dims; ++i) shape.push_back(m.size[i]);
  if (!declared.empty() && shape_numel(declared) == shape_numel(shape)) shape = declared;
  Tensor t(DType::kFloat32, shape);
  const cv::Mat c = m.isContinuous() ? m : m.clone();
  std::memcpy(t.raw(), c.data, t.nbytes());
  return t;
}

Shape declared_shape(const Model& model, const std::string& value) {
  const ValueInfo* vi = nullptr;
  auto it = model.graph.value_info.find(value);
  if (it != model.graph.value_info.end()) vi = &it->second;
  for (const auto& o : model.graph.outputs) {
    if (o.name == value) vi = &o;
  }
  Shape s;
  if (!vi || !vi->has_shape) return s;
  for (const auto& d : vi->dims) {
    if (d.value < 0) return {};
    s.push_back(d.value);
  }
  return s;
}

// The layer OpenCV 4.6's importer made for a node's first output: "onnx_node!<node name>", or
// the output's name for unnamed nodes; "" when the importer folded the node away.
std::string layer_of(const cv::dnn::Net& net, const Node& n) {
  if (n.outputs.empty() || n.outputs[0].empty()) return "";
  for (const std::string& name : {"onnx_node!" + n.name, n.outputs[0]}) {
    if (net.getLayerId(name) >= 0) return name;
  }
  return "";
}

// OpenCV's importer names the node it gave up on: "Node [Gather@ai.onnx]:(onnx_node!NAME) parse
// error: ..." for a named node, "(onnx_node_output_K!VALUE)" for an unnamed one (VALUE its K-th
// output). Marking that node on the status lets the run's rejection name the node and its op type
// like any refusal; the message is all OpenCV gives.
Status importer_failure(const Model& model, const std::string& message) {
  Status st = unsupported("{}: OpenCV's ONNX importer: {}", model.path, message);
  const size_t begin = message.find("(onnx_node");
  const size_t bang = begin == std::string::npos ? begin : message.find('!', begin);
  const size_t end = bang == std::string::npos ? bang : message.find(')', bang);
  if (end == std::string::npos) return st;
  const std::string tag = message.substr(begin + 10, bang - begin - 10);  // "" or "_output_K"
  const std::string name = message.substr(bang + 1, end - bang - 1);
  size_t output = 0;  // which output names an unnamed node
  if (!tag.empty()) {
    if (tag.rfind("_output_", 0) != 0) return st;
    output = std::strtoul(tag.c_str() + 8, nullptr, 10);
  }
  const auto& nodes = model.graph.nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    const bool named =
        tag.empty() ? n.name == name
                    : n.name.empty() && output < n.outputs.size() && n.outputs[output] == name;
    if (named) return st.at_node(static_cast<int64_t>(i));
  }
  return st;
}

}  // namespace

LibraryVersion OpencvBackend::library() const { return {"OpenCV", cv::getVersionString()}; }

Status OpencvBackend::supports(const Node& node, const Model&) const {
  if (!node.domain.empty()) {
    return unsupported("{}: OpenCV's ONNX importer reads only the default domain", node.label());
  }
  return Status::Ok();
}

Status OpencvBackend::check_loads(const Model& model) {
  auto bytes = opencv_compatible_onnx(model.path);
  if (!bytes.ok()) return bytes.status();
  try {
    (void)cv::dnn::readNetFromONNX(bytes->data(), bytes->size());
  } catch (const cv::Exception& e) {
    return unsupported("{}: OpenCV's ONNX importer: {}", model.path, e.msg);
  }
  return Status::Ok();
}

Expected<std::vector<Value>> OpencvBackend::run_values(const Model& model,
                                                       const std::map<std::string, Value>& feeds,
                                                       const NodeCallback& on_node) {
  IG_RETURN_IF_ERROR(check_feeds(model, feeds));
  auto bytes = opencv_compatible_onnx(model.path);
  if (!bytes.ok()) return bytes.status();
  cv::setNumThreads(options_.threads);
  try {
    cv::dnn::Net net;
    try {
      net = cv::dnn::readNetFromONNX(bytes->data(), bytes->size());
    } catch (const cv::Exception& e) {
      return importer_failure(model, e.msg);
    }
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    for (const auto& [name, v] : feeds) {
      auto m = to_mat(name, v.tensor);
      if (!m.ok()) return m.status();
      net.setInput(*m, name);
    }
    // Layers to fetch: each node's layer, in graph order, then the graph outputs.
    std::vector<cv::String> names;
    std::vector<const Node*> traced;
    if (on_node) {
      for (const Node& n : model.graph.nodes) {
        const std::string layer = layer_of(net, n);
        if (layer.empty()) continue;
        names.push_back(layer);
        traced.push_back(&n);
      }
    }
    const size_t first_output = names.size();
    for (const auto& o : model.graph.outputs) {
      std::string layer = net.getLayerId(o.name) >= 0 ? o.name : "";
      for (const Node& n : model.graph.nodes) {
        if (layer.empty() && !n.outputs.empty() && n.outputs[0] == o.name) layer = layer_of(net, n);
      }
      if (layer.empty()) {
        return unsupported("{}: OpenCV's net has no layer for graph output '{}'", model.path,
                           o.name);
      }
      names.push_back(layer);
    }
    std::vector<cv::Mat> outs;
    net.forward(outs, names);
    for (size_t i = 0; i < traced.size(); ++i) {
      const Node& n = *traced[i];
      std::vector<Value> values(n.outputs.size());
      IG_ASSIGN_OR_RETURN(Tensor t,
                          to_tensor(outs[i], n.outputs[0], declared_shape(model, n.outputs[0])));
      values[0] = Value::of(std::move(t));
      // Requesting a layer's output keeps it from being fused into the next layer.
      on_node(n, values, {"", "opencv layer (captured: not fused)"});
    }
    std::vector<Value> results;
    for (size_t i = first_output; i < names.size(); ++i) {
      const std::string& value = model.graph.outputs[i - first_output].name;
      IG_ASSIGN_OR_RETURN(Tensor t, to_tensor(outs[i], value, declared_shape(model, value)));
      results.push_back(Value::of(std::move(t)));
    }
    return results;
  } catch (const cv::Exception& e) {
    return unsupported("{}: OpenCV DNN: {}", model.path, e.msg);
  }
}

}  // namespace ig

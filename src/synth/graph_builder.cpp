#include "synth/graph_builder.h"

#include <cmath>

#include "inputs/rng.h"
#include "model/tensor_proto.h"

namespace ig {

namespace {

constexpr int64_t kIrVersion = 8;
constexpr int64_t kOpset = 17;

void set_attr(onnx::NodeProto* n, const std::string& key, const AttrValue& v) {
  auto* a = n->add_attribute();
  a->set_name(key);
  if (const auto* i = std::get_if<int64_t>(&v)) {
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(*i);
  } else if (const auto* f = std::get_if<float>(&v)) {
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(*f);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(*s);
  } else if (const auto* is = std::get_if<std::vector<int64_t>>(&v)) {
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : *is) a->add_ints(x);
  } else if (const auto* fs = std::get_if<std::vector<float>>(&v)) {
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float x : *fs) a->add_floats(x);
  }
}

void set_tensor_type(onnx::ValueInfoProto* vi, const std::string& name, DType dtype,
                     const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(dtype));
  auto* shape = tt->mutable_shape();
  shape->add_dim()->set_dim_param("N");
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

}  // namespace

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::kRelu:
      return "relu";
    case Activation::kRelu6:
      return "relu6";
    case Activation::kSigmoid:
      return "sigmoid";
    case Activation::kTanh:
      return "tanh";
    case Activation::kGelu:
      return "gelu";
  }
  return "?";
}

Expected<Activation> parse_activation(const std::string& text) {
  for (Activation a : {Activation::kRelu, Activation::kRelu6, Activation::kSigmoid,
                       Activation::kTanh, Activation::kGelu}) {
    if (text == activation_name(a)) return a;
  }
  return invalid_argument("unknown activation '{}' (use relu, relu6, sigmoid, tanh or gelu)", text);
}

const char* pool_name(PoolKind p) { return p == PoolKind::kMax ? "max" : "avg"; }

Expected<PoolKind> parse_pool(const std::string& text) {
  if (text == "max") return PoolKind::kMax;
  if (text == "avg") return PoolKind::kAvg;
  return invalid_argument("unknown pooling '{}' (use max or avg)", text);
}

std::string WeightInit::to_string() const {
  switch (kind) {
    case Kind::kHe:
      return "he";
    case Kind::kGlorot:
      return "glorot";
    case Kind::kGaussian:
      return fmt::format("gaussian:{},{}", mu, sigma);
  }
  return "?";
}

Expected<WeightInit> parse_weight_init(const std::string& text) {
  WeightInit w;
  if (text == "he") return w;
  if (text == "glorot") {
    w.kind = WeightInit::Kind::kGlorot;
    return w;
  }
  const std::string prefix = "gaussian:";
  if (text.rfind(prefix, 0) == 0) {
    const std::string rest = text.substr(prefix.size());
    const auto comma = rest.find(',');
    try {
      if (comma == std::string::npos) throw std::invalid_argument("no comma");
      size_t used_mu = 0, used_sigma = 0;
      w.mu = std::stod(rest.substr(0, comma), &used_mu);
      w.sigma = std::stod(rest.substr(comma + 1), &used_sigma);
      if (used_mu != comma || used_sigma != rest.size() - comma - 1)
        throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      return invalid_argument("--init '{}': expected gaussian:MU,SIGMA, e.g. gaussian:-0.019,0.226",
                              text);
    }
    if (!(w.sigma > 0) || !std::isfinite(w.mu) || !std::isfinite(w.sigma))
      return invalid_argument("--init '{}': SIGMA must be positive and both finite", text);
    w.kind = WeightInit::Kind::kGaussian;
    return w;
  }
  return invalid_argument("unknown --init '{}' (use he, glorot or gaussian:MU,SIGMA)", text);
}

GraphBuilder::GraphBuilder(std::string graph_name, DType dtype, uint64_t seed, WeightInit init)
    : dtype_(dtype), seed_(seed), init_(init) {
  model_.set_ir_version(kIrVersion);
  model_.set_producer_name("infergap");
  model_.set_producer_version("zoo-1");
  auto* os = model_.add_opset_import();
  os->set_domain("");
  os->set_version(kOpset);
  graph_ = model_.mutable_graph();
  graph_->set_name(std::move(graph_name));
}

std::string GraphBuilder::unique(const std::string& hint) {
  const int n = name_counts_[hint]++;
  return n == 0 ? hint : fmt::format("{}_{}", hint, n);
}

std::string GraphBuilder::input(const std::string& name, const std::vector<int64_t>& dims) {
  set_tensor_type(graph_->add_input(), name, dtype_, dims);
  name_counts_[name]++;
  return name;
}

void GraphBuilder::output(const std::string& value, const std::string& name,
                          const std::vector<int64_t>& dims) {
  const std::string out = value == name ? value : node("Identity", {value}, name);
  set_tensor_type(graph_->add_output(), out, dtype_, dims);
}

void GraphBuilder::metadata(const std::string& key, const std::string& value) {
  auto* p = model_.add_metadata_props();
  p->set_key(key);
  p->set_value(value);
}

std::string GraphBuilder::node(const std::string& op, const std::vector<std::string>& inputs,
                               const std::string& hint, const Attrs& attrs) {
  std::string out = unique(hint);
  auto* n = graph_->add_node();
  n->set_op_type(op);
  n->set_name(out);
  for (const auto& in : inputs) n->add_input(in);
  n->add_output(out);
  for (const auto& [key, value] : attrs) set_attr(n, key, value);
  return out;
}

std::string GraphBuilder::add_initializer(const std::string& hint, const Shape& shape,
                                          const std::vector<double>& values) {
  std::string name = unique(hint);
  auto t = tensor_from_doubles(dtype_, shape, values);
  if (!t.ok()) throw StatusError(t.status());
  tensor_to_proto(*t, name, graph_->add_initializer());
  return name;
}

std::string GraphBuilder::seeded_initializer(const std::string& hint, const Shape& shape,
                                             const std::function<double(Rng&)>& draw) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  // Peek the final name so the seed depends on it, not on how many weights came before.
  const int count = name_counts_[hint];
  const std::string name = count == 0 ? hint : fmt::format("{}_{}", hint, count);
  Rng rng(derive_seed(seed_, name));
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = draw(rng);
  return add_initializer(hint, shape, v);
}

std::string GraphBuilder::weight(const std::string& hint, const Shape& shape, int64_t fan_in,
                                 int64_t fan_out) {
  switch (init_.kind) {
    case WeightInit::Kind::kHe: {
      const double sd = std::sqrt(2.0 / static_cast<double>(fan_in));
      return seeded_initializer(hint, shape, [&](Rng& rng) { return rng.normal(0, sd); });
    }
    case WeightInit::Kind::kGlorot: {
      const double lim = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
      return seeded_initializer(hint, shape, [&](Rng& rng) { return rng.uniform(-lim, lim); });
    }
    case WeightInit::Kind::kGaussian:
      break;
  }
  return seeded_initializer(hint, shape,
                            [&](Rng& rng) { return rng.normal(init_.mu, init_.sigma); });
}

std::string GraphBuilder::uniform(const std::string& hint, const Shape& shape, double lo,
                                  double hi) {
  return seeded_initializer(hint, shape, [&](Rng& rng) { return rng.uniform(lo, hi); });
}

std::string GraphBuilder::constant(const std::string& hint, const Tensor& value) {
  std::string name = unique(hint);
  tensor_to_proto(value, name, graph_->add_initializer());
  return name;
}

std::string GraphBuilder::scalar(const std::string& hint, double value) {
  return add_initializer(hint, {}, {value});
}

std::string GraphBuilder::int64s(const std::string& hint, const std::vector<int64_t>& values) {
  return constant(hint, Tensor::from_vector(values, {static_cast<int64_t>(values.size())}));
}

std::string GraphBuilder::conv(const std::string& x, int64_t cin, int64_t cout, int64_t kernel,
                               int64_t stride, int64_t pad, int64_t groups, bool bias) {
  const int64_t fan_in = cin / groups * kernel * kernel;
  const int64_t fan_out = cout / groups * kernel * kernel;
  std::vector<std::string> ins{
      x, weight("conv_w", {cout, cin / groups, kernel, kernel}, fan_in, fan_out)};
  if (bias) {
    const double b = 1.0 / std::sqrt(static_cast<double>(fan_in));
    ins.push_back(uniform("conv_b", {cout}, -b, b));
  }
  return node("Conv", ins, "conv",
              {{"kernel_shape", std::vector<int64_t>{kernel, kernel}},
               {"strides", std::vector<int64_t>{stride, stride}},
               {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
               {"group", groups}});
}

std::string GraphBuilder::batch_norm(const std::string& x, int64_t channels, double var_scale) {
  // Statistics in the range a trained network has, so the layer rescales and shifts for real.
  const std::string scale = uniform("bn_scale", {channels}, 0.5, 1.5);
  const std::string shift = uniform("bn_bias", {channels}, -0.25, 0.25);
  const double m = 0.3 * std::sqrt(var_scale);
  const std::string mean = uniform("bn_mean", {channels}, -m, m);
  const std::string var = uniform("bn_var", {channels}, 0.5 * var_scale, 2.0 * var_scale);
  return node("BatchNormalization", {x, scale, shift, mean, var}, "batchnorm",
              {{"epsilon", 1e-3f}});
}

std::string GraphBuilder::activation(const std::string& x, Activation a) {
  switch (a) {
    case Activation::kRelu:
      return node("Relu", {x}, "relu");
    case Activation::kRelu6:
      return node("Clip", {x, scalar("clip_min", 0), scalar("clip_max", 6)}, "relu6");
    case Activation::kSigmoid:
      return node("Sigmoid", {x}, "sigmoid");
    case Activation::kTanh:
      return node("Tanh", {x}, "tanh");
    case Activation::kGelu:
      return gelu(x);
  }
  return x;
}

std::string GraphBuilder::gelu(const std::string& x) {
  // 0.5 * x * (1 + erf(x / sqrt(2)))
  const std::string scaled = node("Mul", {x, scalar("gelu_rsqrt2", M_SQRT1_2)}, "gelu_scale");
  const std::string erf = node("Erf", {scaled}, "gelu_erf");
  const std::string one = node("Add", {erf, scalar("gelu_one", 1.0)}, "gelu_add");
  const std::string half = node("Mul", {x, scalar("gelu_half", 0.5)}, "gelu_half");
  return node("Mul", {half, one}, "gelu");
}

std::string GraphBuilder::pool(const std::string& x, PoolKind kind, int64_t kernel, int64_t stride,
                               int64_t pad) {
  Attrs attrs{{"kernel_shape", std::vector<int64_t>{kernel, kernel}},
              {"strides", std::vector<int64_t>{stride, stride}},
              {"pads", std::vector<int64_t>{pad, pad, pad, pad}}};
  if (kind == PoolKind::kMax) return node("MaxPool", {x}, "maxpool", attrs);
  // Padding does not count, as in Keras and PyTorch's usual setting for these nets.
  attrs["count_include_pad"] = int64_t{0};
  return node("AveragePool", {x}, "avgpool", attrs);
}

std::string GraphBuilder::global_avg_pool(const std::string& x) {
  return node("GlobalAveragePool", {x}, "global_avgpool");
}

std::string GraphBuilder::flatten(const std::string& x) {
  return node("Flatten", {x}, "flatten", {{"axis", int64_t{1}}});
}

std::string GraphBuilder::dense(const std::string& x, int64_t in, int64_t out) {
  const double b = 1.0 / std::sqrt(static_cast<double>(in));
  // [out, in] with transB = 1: the form PyTorch exports, which OpenCV's importer requires.
  const std::string w = weight("dense_w", {out, in}, in, out);
  const std::string bias = uniform("dense_b", {out}, -b, b);
  return node("Gemm", {x, w, bias}, "dense", {{"transB", int64_t{1}}});
}

std::string GraphBuilder::linear(const std::string& x, int64_t in, int64_t out) {
  const double b = 1.0 / std::sqrt(static_cast<double>(in));
  const std::string w = weight("linear_w", {in, out}, in, out);
  const std::string y = node("MatMul", {x, w}, "linear_matmul");
  return node("Add", {y, uniform("linear_b", {out}, -b, b)}, "linear");
}

std::string GraphBuilder::layer_norm(const std::string& x, int64_t features) {
  const std::string scale = uniform("ln_scale", {features}, 0.8, 1.2);
  const std::string shift = uniform("ln_bias", {features}, -0.1, 0.1);
  return node("LayerNormalization", {x, scale, shift}, "layernorm",
              {{"axis", int64_t{-1}}, {"epsilon", 1e-5f}});
}

std::string GraphBuilder::add(const std::string& a, const std::string& b) {
  return node("Add", {a, b}, "add");
}
std::string GraphBuilder::mul(const std::string& a, const std::string& b) {
  return node("Mul", {a, b}, "mul");
}
std::string GraphBuilder::matmul(const std::string& a, const std::string& b) {
  return node("MatMul", {a, b}, "matmul");
}
std::string GraphBuilder::softmax(const std::string& x, int64_t axis) {
  return node("Softmax", {x}, "softmax", {{"axis", axis}});
}
std::string GraphBuilder::reshape(const std::string& x, const std::vector<int64_t>& shape) {
  return node("Reshape", {x, int64s("shape", shape)}, "reshape");
}
std::string GraphBuilder::transpose(const std::string& x, const std::vector<int64_t>& perm) {
  return node("Transpose", {x}, "transpose", {{"perm", perm}});
}

onnx::ModelProto GraphBuilder::finish() { return model_; }

}  // namespace ig

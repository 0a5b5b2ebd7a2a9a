// Helpers for tests of real backends: a small seeded conv net as an ONNX file, running a platform
// in this process, and running this test binary again as a child process with a platform's
// environment (library knobs are read once, at start-up).
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../support/onnx_builder.h"
#include "inputs/random_input.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"
#include "platform/registry.h"
#include "platform/spec.h"
#include "tensor/hash.h"

namespace ig::testing {

inline bool have_torch_platform() { return BackendRegistry::global().find("torch") != nullptr; }

#define REQUIRE_TORCH()                      \
  if (!::ig::testing::have_torch_platform()) \
  GTEST_SKIP() << "built without libtorch "  \
                  "(libtorch-dev)"

// Graph-building shorthand over the protobuf API.
struct GraphBuilder {
  onnx::ModelProto model;
  onnx::GraphProto* g;
  uint64_t seed = 1;
  explicit GraphBuilder(int opset = 13) {
    model.set_ir_version(8);
    model.set_producer_name("infergap-tests");
    auto* os = model.add_opset_import();
    os->set_domain("");
    os->set_version(opset);
    g = model.mutable_graph();
    g->set_name("g");
  }
  void io(bool input, const std::string& name, const Shape& dims) {
    auto* vi = input ? g->add_input() : g->add_output();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  // An initializer of `v`'s elements.
  template <typename T>
  void init(const std::string& name, const std::vector<T>& v, Shape shape) {
    tensor_to_proto(Tensor::from_vector(v, std::move(shape)), name, g->add_initializer());
  }
  // Uniform in [-scale, scale), seeded.
  std::string weight(const std::string& name, const Shape& shape, float scale) {
    Tensor t = random_uniform_tensor(DType::kFloat32, shape, seed++);
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data<float>()[i] = (t.data<float>()[i] * 2 - 1) * scale;
    tensor_to_proto(t, name, g->add_initializer());
    return name;
  }
  onnx::NodeProto* node(const std::string& op, const std::string& name, std::vector<std::string> in,
                        std::vector<std::string> out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return n;
  }
  // A Constant node whose output is `name` (how torch exports small constants).
  void constant(const std::string& name, const Tensor& t) {
    auto* a = node("Constant", name, {}, {name})->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    tensor_to_proto(t, name, a->mutable_t());
  }
  static void ints(onnx::NodeProto* n, const std::string& key, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void integer(onnx::NodeProto* n, const std::string& key, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
};

// A resnet-style block: conv-relu-maxpool, conv + residual add, relu, global average pool,
// flatten, fully connected, softmax. X is [1, cin, hw, hw].
inline onnx::ModelProto small_convnet(int64_t cin = 3, int64_t c = 16, int64_t hw = 16,
                                      int64_t classes = 10) {
  GraphBuilder b;
  b.io(true, "X", {1, cin, hw, hw});
  b.io(false, "probs", {1, classes});
  const float s1 = 1.0f / std::sqrt(float(cin * 9)), s2 = 1.0f / std::sqrt(float(c * 9));
  auto* c1 = b.node("Conv", "conv1",
                    {"X", b.weight("w1", {c, cin, 3, 3}, s1), b.weight("b1", {c}, 0.1f)}, {"c1"});
  GraphBuilder::ints(c1, "pads", {1, 1, 1, 1});
  b.node("Relu", "relu1", {"c1"}, {"r1"});
  auto* mp = b.node("MaxPool", "pool1", {"r1"}, {"p1"});
  GraphBuilder::ints(mp, "kernel_shape", {2, 2});
  GraphBuilder::ints(mp, "strides", {2, 2});
  auto* c2 = b.node("Conv", "conv2",
                    {"p1", b.weight("w2", {c, c, 3, 3}, s2), b.weight("b2", {c}, 0.1f)}, {"c2"});
  GraphBuilder::ints(c2, "pads", {1, 1, 1, 1});
  b.node("Add", "add1", {"c2", "p1"}, {"a1"});
  b.node("Relu", "relu2", {"a1"}, {"r2"});
  b.node("GlobalAveragePool", "gap", {"r2"}, {"g1"});
  b.node("Flatten", "flatten", {"g1"}, {"f1"});
  auto* fc = b.node("Gemm", "fc",
                    {"f1", b.weight("wfc", {classes, c}, 0.5f), b.weight("bfc", {classes}, 0.1f)},
                    {"logits"});
  GraphBuilder::integer(fc, "transB", 1);
  b.node("Softmax", "softmax", {"logits"}, {"probs"});
  return b.model;
}

// One convolution with a long reduction (cin * 9 terms per output), where vector widths and
// blockings change the summation order. Weights uniform in [-scale, scale): with scale 1 they lie
// on a 2^-23 grid, so fp64 sums of their products with [0, 1) inputs are exact in any order; an
// other scale spreads them over many grids.
inline onnx::ModelProto long_conv(int64_t cin = 64, int64_t c = 16, int64_t hw = 12,
                                  float scale = 1.0f) {
  GraphBuilder b;
  b.io(true, "X", {1, cin, hw, hw});
  b.io(false, "Y", {1, c, hw, hw});
  auto* n = b.node("Conv", "conv", {"X", b.weight("w", {c, cin, 3, 3}, scale)}, {"Y"});
  GraphBuilder::ints(n, "pads", {1, 1, 1, 1});
  return b.model;
}

inline std::string save(const onnx::ModelProto& proto, const std::string& dir,
                        const std::string& name) {
  const std::string path = dir + "/" + name;
  EXPECT_TRUE(save_model_proto(proto, path).ok());
  return path;
}

struct Outcome {
  Status status;
  std::vector<Value> outputs;
  std::vector<std::pair<std::string, NodeReport>> reports;  // reported node name, report
  std::map<std::string, Tensor> trace;                      // value name -> tensor
};

inline Outcome run_platform(const std::string& spec_text, const Model& model,
                            const std::map<std::string, Tensor>& feeds) {
  Outcome o;
  auto spec = parse_platform_spec(spec_text);
  if (!spec.ok()) return {spec.status(), {}, {}, {}};
  auto backend = make_backend(*spec);
  if (!backend.ok()) return {backend.status(), {}, {}, {}};
  auto outs = (*backend)->run(model, feeds,
                              [&](const Node& n, const std::vector<Value>& v, const NodeReport& r) {
                                o.reports.emplace_back(n.name, r);
                                for (size_t i = 0; i < v.size(); ++i) {
                                  if (v[i].is_tensor()) o.trace[n.outputs[i]] = v[i].tensor;
                                }
                              });
  if (!outs.ok()) return {outs.status(), {}, {}, {}};
  o.outputs = std::move(*outs);
  return o;
}

// Largest |a - b| / max(|b|, 0.01) over all elements (b the reference): relative error, except
// near zero where cancellation in a sum makes it meaningless (there: absolute error / 0.01).
inline double max_rel_error(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  double worst = 0;
  for (int64_t i = 0; i < a.numel() && i < b.numel(); ++i) {
    const double x = a.data<float>()[i], y = b.data<float>()[i];
    worst = std::max(worst, std::abs(x - y) / std::max(std::abs(y), 1e-2));
  }
  return worst;
}

// The classical bound of any summation order (Higham, "Accuracy and Stability of Numerical
// Algorithms", 3.1): n products summed in floating point with `mantissa_bits` explicit bits are
// within gamma_n * sum |a_k b_k| of the exact sum, gamma_n = n u / (1 - n u), u = 2^-(bits + 1).
// Kernels pick their order per CPU; this bound holds for every order, FMA or not.
inline double gamma_n(int64_t n, int mantissa_bits) {
  const double u = std::ldexp(1.0, -(mantissa_bits + 1));
  return double(n) * u / (1 - double(n) * u);
}
inline double fp32_gamma(int64_t n) { return gamma_n(n, 23); }

// The largest |got - exact| / (gamma * scale) over elements: the share of a rounding bound that
// `got` uses (<= 1 within it). `scale` holds each element's sum of |terms|.
inline double bound_share(const Tensor& got, const Tensor& exact, const Tensor& scale,
                          double gamma) {
  EXPECT_EQ(got.shape(), exact.shape());
  EXPECT_EQ(got.shape(), scale.shape());
  double worst = 0;
  for (int64_t i = 0; i < got.numel() && i < exact.numel() && i < scale.numel(); ++i) {
    const double error = std::abs(got.as_double(i) - exact.as_double(i));
    if (error == 0) continue;
    worst = std::max(worst, error / (gamma * scale.as_double(i)));
  }
  return worst;
}

// The model with every float initializer replaced by its absolute value. Run on |X|, a model of
// convolutions, matrix products and averages computes each output's sum of |terms|: the scale of
// its rounding bound.
inline onnx::ModelProto with_abs_weights(onnx::ModelProto model) {
  for (auto& init : *model.mutable_graph()->mutable_initializer()) {
    auto t = tensor_from_proto(init);
    EXPECT_TRUE(t.ok()) << init.name();
    if (!t.ok() || t->dtype() != DType::kFloat32) continue;
    for (int64_t i = 0; i < t->numel(); ++i) t->data<float>()[i] = std::abs(t->data<float>()[i]);
    const std::string name = init.name();
    init.Clear();
    tensor_to_proto(*t, name, &init);
  }
  return model;
}

inline std::string hex_hash(const Tensor& t) { return fmt::format("{:016x}", tensor_hash(t)); }

struct ChildResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out;  // stdout and stderr
};

// Runs one test of this binary in a fresh process with `env` added to the environment.
inline ChildResult run_child(const std::string& test,
                             const std::map<std::string, std::string>& env) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[0]);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    const std::string filter = "--gtest_filter=" + test;
    execl("/proc/self/exe", "child", filter.c_str(), "--gtest_also_run_disabled_tests",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  ChildResult r;
  std::array<char, 4096> buf;
  ssize_t n;
  while ((n = read(fds[0], buf.data(), buf.size())) > 0) r.out.append(buf.data(), size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

// The value after "<key> " on a line of the child's output ("" when absent).
inline std::string child_field(const std::string& out, const std::string& key) {
  const std::string tag = "\n" + key + " ";
  const auto at = ("\n" + out).find(tag);
  if (at == std::string::npos) return "";
  const auto start = at + tag.size() - 1;
  return out.substr(start, out.find('\n', start) - start);
}

// The environment a platform's worker starts with, plus the spec for the child test to read.
inline std::map<std::string, std::string> child_env(const std::string& spec_text) {
  std::map<std::string, std::string> env;
  auto spec = parse_platform_spec(spec_text);
  EXPECT_TRUE(spec.ok());
  const BackendFactory* f = BackendRegistry::global().find(spec->backend);
  EXPECT_NE(f, nullptr);
  if (f && f->environment) {
    auto e = f->environment(*spec);
    EXPECT_TRUE(e.ok()) << e.status().to_string();
    if (e.ok()) env = *e;
  }
  env["IG_TEST_SPEC"] = spec_text;
  return env;
}

}  // namespace ig::testing

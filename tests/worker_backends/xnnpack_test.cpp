// The xnnpack backend on real XNNPACK calls: every mapped operator on small generated models
// against the fp64 oracle (the study's default oracle), refusals with their reasons, knobs.
#include <cmath>
#include <cstring>
#include <functional>

#include "backend_test_util.h"
#include "backends/xnnpack/xnnpack_common.h"

namespace ig::testing {
namespace {

const char* const kOracle = "ref:acc=exact,dtype=fp64";

// Largest |a - b| / max(|b|, 0.01) with b the oracle (fp32 or fp64).
double rel_error_vs(const Tensor& a, const Tensor& oracle) {
  EXPECT_EQ(a.shape(), oracle.shape());
  double worst = 0;
  for (int64_t i = 0; i < a.numel() && i < oracle.numel(); ++i) {
    const double x = a.as_double(i), y = oracle.as_double(i);
    worst = std::max(worst, std::abs(x - y) / std::max(std::abs(y), 1e-2));
  }
  return worst;
}

// Uniform in [lo, hi), seeded.
Tensor uniform(const Shape& shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  Tensor t = random_uniform_tensor(DType::kFloat32, shape, seed);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = lo + t.data<float>()[i] * (hi - lo);
  return t;
}

// One case: a model with a single node (plus Constant nodes), fed X in [lo, hi).
struct OneNode {
  GraphBuilder b;
  Shape x_shape;
  float lo = -1, hi = 1;
  onnx::NodeProto* n = nullptr;
  explicit OneNode(const std::string& op, const Shape& x, const Shape& y, int opset = 13)
      : b(opset), x_shape(x) {
    b.io(true, "X", x);
    b.io(false, "Y", y);
    n = b.node(op, "node", {"X"}, {"Y"});
  }
  OneNode& input(const std::string& name) {
    n->add_input(name);
    return *this;
  }
  OneNode& weight(const Shape& shape, float scale) {
    return input(b.weight("w" + std::to_string(n->input_size()), shape, scale));
  }
  OneNode& ints(const std::string& key, std::vector<int64_t> v) {
    GraphBuilder::ints(n, key, std::move(v));
    return *this;
  }
  OneNode& integer(const std::string& key, int64_t v) {
    GraphBuilder::integer(n, key, v);
    return *this;
  }
  OneNode& real(const std::string& key, float v) {
    auto* a = n->add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
    return *this;
  }
  OneNode& range(float l, float h) {
    lo = l;
    hi = h;
    return *this;
  }
};

struct CaseResult {
  Outcome xnn, oracle;
};

// `spec` on the case's model and input X in [lo, hi). With `magnitudes`, the model has |weights|
// and the input is |X|: the oracle then computes each output's sum of |terms| (|w_k x_k|, |bias|),
// the scale of its rounding bound.
Outcome run_one(OneNode& c, const std::string& spec, bool magnitudes = false) {
  TempDir dir;
  auto model = load_model(
      save(magnitudes ? with_abs_weights(c.b.model) : c.b.model, dir.path.string(), "one.onnx"));
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  if (!model.ok()) return {model.status(), {}, {}, {}};
  Tensor x = uniform(c.x_shape, 11, c.lo, c.hi);
  if (magnitudes) {
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::abs(x.data<float>()[i]);
  }
  return run_platform(spec, *model, {{"X", x}});
}

CaseResult run_case(OneNode& c, const std::string& spec = "xnnpack") {
  return {run_one(c, spec), run_one(c, kOracle)};
}

// The node runs on XNNPACK (its note names the operator) within `tol` of the oracle, relative:
// exact operators (0), operators rounded once (1e-7 > u = 2^-24; Sqrt, whose AVX-512 kernel is a
// Newton step, within one ulp: 2^-23 relative), and XNNPACK's polynomial
// approximations of exp and its kin (1e-5, ~170 ulps, far above their documented few ulps).
void expect_agrees(OneNode& c, const std::string& what, double tol) {
  CaseResult r = run_case(c);
  ASSERT_TRUE(r.xnn.status.ok()) << what << ": " << r.xnn.status.to_string();
  ASSERT_TRUE(r.oracle.status.ok()) << what << ": " << r.oracle.status.to_string();
  ASSERT_FALSE(r.xnn.reports.empty());
  EXPECT_EQ(r.xnn.reports.back().second.note.rfind("xnn:", 0), 0u)
      << what << ": " << r.xnn.reports.back().second.note;
  EXPECT_LE(rel_error_vs(r.xnn.outputs[0].tensor, r.oracle.outputs[0].tensor), tol) << what;
}

// A convolution or matrix product summing n terms per element (K products, plus a bias), or an
// average of K values (n = K + 1: its scaling rounds twice more), stays within the bound of any
// order on XNNPACK: a sum of n terms computed in fp32 in any order, FMA or not, is within gamma_n
// times the sum of |terms| of the exact value. XNNPACK picks its micro-kernels (tiles, FMA,
// threads) per CPU: the bound is the operation's, and holds for all of them. Not vacuous: the same
// operation with bf16 operands (what a fast-math kernel does) leaves it.
void expect_within_rounding_bound(OneNode& c, const std::string& what, int64_t n) {
  CaseResult r = run_case(c);
  const Outcome bf16 = run_one(c, "ref:dtype=bf16");
  const Outcome sum_abs = run_one(c, kOracle, /*magnitudes=*/true);
  ASSERT_TRUE(r.xnn.status.ok()) << what << ": " << r.xnn.status.to_string();
  ASSERT_TRUE(r.oracle.status.ok()) << what << ": " << r.oracle.status.to_string();
  ASSERT_TRUE(bf16.status.ok()) << what << ": " << bf16.status.to_string();
  ASSERT_TRUE(sum_abs.status.ok()) << what << ": " << sum_abs.status.to_string();
  ASSERT_FALSE(r.xnn.reports.empty()) << what;
  EXPECT_EQ(r.xnn.reports.back().second.note.rfind("xnn:", 0), 0u)
      << what << ": " << r.xnn.reports.back().second.note;
  const Tensor& exact = r.oracle.outputs[0].tensor;
  const Tensor& scale = sum_abs.outputs[0].tensor;
  EXPECT_LE(bound_share(r.xnn.outputs[0].tensor, exact, scale, fp32_gamma(n)), 1.0) << what;
  EXPECT_GT(bound_share(bf16.outputs[0].tensor, exact, scale, fp32_gamma(n)), 1.0) << what;
}

TEST(Xnnpack, ConvolutionsAgreeWithTheOracle) {
  {
    OneNode c("Conv", {2, 5, 9, 9}, {2, 7, 9, 9});
    c.weight({7, 5, 3, 3}, 0.3f).weight({7}, 0.1f).ints("pads", {1, 1, 1, 1});
    expect_within_rounding_bound(c, "3x3 pads 1 with bias", 5 * 9 + 1);
  }
  {
    OneNode c("Conv", {1, 4, 11, 10}, {1, 6, 4, 5});
    c.weight({6, 4, 3, 2}, 0.3f).ints("strides", {2, 2}).ints("dilations", {2, 3});
    c.ints("pads", {1, 0, 0, 2});
    expect_within_rounding_bound(c, "3x2, strides 2, dilations 2x3, asymmetric pads, no bias",
                                 4 * 6);
  }
  {
    OneNode c("Conv", {1, 6, 8, 8}, {1, 4, 8, 8});
    c.weight({4, 3, 3, 3}, 0.3f).weight({4}, 0.1f).ints("pads", {1, 1, 1, 1}).integer("group", 2);
    expect_within_rounding_bound(c, "grouped, group=2", 3 * 9 + 1);
  }
  {
    OneNode c("Conv", {1, 8, 10, 10}, {1, 8, 5, 5});
    c.weight({8, 1, 3, 3}, 0.5f).weight({8}, 0.1f).ints("pads", {1, 1, 1, 1});
    c.ints("strides", {2, 2}).integer("group", 8);
    expect_within_rounding_bound(c, "depthwise 3x3 stride 2", 9 + 1);
  }
  {
    OneNode c("Conv", {1, 4, 7, 7}, {1, 8, 7, 7});
    c.weight({8, 1, 5, 5}, 0.5f).ints("pads", {2, 2, 2, 2}).integer("group", 4);
    expect_within_rounding_bound(c, "depthwise 5x5, multiplier 2", 25);
  }
  for (const char* pad : {"SAME_UPPER", "SAME_LOWER"}) {
    OneNode c("Conv", {1, 3, 10, 10}, {1, 4, 5, 5});
    c.weight({4, 3, 4, 4}, 0.3f).ints("strides", {2, 2});
    auto* a = c.n->add_attribute();
    a->set_name("auto_pad");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(pad);
    expect_within_rounding_bound(c, pad, 3 * 16);
  }
  {
    OneNode c("Conv", {2, 3, 20}, {2, 5, 10});
    c.weight({5, 3, 3}, 0.3f).weight({5}, 0.1f).ints("pads", {1, 1}).ints("strides", {2});
    expect_within_rounding_bound(c, "1-D", 3 * 3 + 1);
  }
}

TEST(Xnnpack, ConvNoteNamesOperatorAndLayout) {
  OneNode c("Conv", {1, 3, 6, 6}, {1, 4, 4, 4});
  c.weight({4, 3, 3, 3}, 0.3f);
  CaseResult r = run_case(c);
  ASSERT_TRUE(r.xnn.status.ok()) << r.xnn.status.to_string();
  EXPECT_EQ(r.xnn.reports.back().second.note, "xnn:convolution2d_nhwc_f32 (NCHW->NHWC)");
}

TEST(Xnnpack, FullyConnectedAgreesWithTheOracle) {
  {
    OneNode c("Gemm", {3, 20}, {3, 7});
    c.weight({7, 20}, 0.3f).weight({7}, 0.1f).integer("transB", 1);
    expect_within_rounding_bound(c, "Gemm transB, C [N]", 20 + 1);
  }
  {
    OneNode c("Gemm", {20, 3}, {3, 7});
    c.weight({20, 7}, 0.3f).weight({1}, 0.1f).integer("transA", 1);
    expect_within_rounding_bound(c, "Gemm transA, C scalar", 20 + 1);
  }
  {
    OneNode c("Gemm", {4, 9}, {4, 5});
    c.weight({9, 5}, 0.3f).weight({1, 5}, 0.1f);
    expect_within_rounding_bound(c, "Gemm, C [1,N]", 9 + 1);
  }
  {
    OneNode c("MatMul", {2, 3, 16}, {2, 3, 6});
    c.weight({16, 6}, 0.3f);
    expect_within_rounding_bound(c, "MatMul 3-D A, 2-D B", 16);
  }
  {
    OneNode c("MatMul", {16}, {6});
    c.weight({16, 6}, 0.3f);
    expect_within_rounding_bound(c, "MatMul 1-D A", 16);
  }
}

TEST(Xnnpack, PoolsAgreeWithTheOracle) {
  // Inputs below zero: a max pool that counted padding as 0 would show.
  {
    OneNode c("MaxPool", {1, 3, 9, 9}, {1, 3, 5, 5});
    c.ints("kernel_shape", {3, 3}).ints("strides", {2, 2}).ints("pads", {1, 1, 1, 1});
    c.range(-3, -1);
    expect_agrees(c, "MaxPool 3x3 s2 pads 1", 0);
  }
  {
    OneNode c("MaxPool", {1, 2, 8, 8}, {1, 2, 4, 4});
    c.ints("kernel_shape", {3, 3}).ints("strides", {2, 2}).integer("ceil_mode", 1).range(-3, -1);
    expect_agrees(c, "MaxPool ceil_mode", 0);
  }
  {
    OneNode c("MaxPool", {1, 2, 9, 9}, {1, 2, 7, 7});
    c.ints("kernel_shape", {2, 2}).ints("dilations", {2, 2});
    expect_agrees(c, "MaxPool dilations", 0);
  }
  {
    OneNode c("AveragePool", {1, 3, 9, 9}, {1, 3, 5, 5});
    c.ints("kernel_shape", {3, 3}).ints("strides", {2, 2}).ints("pads", {1, 1, 1, 1});
    expect_within_rounding_bound(c, "AveragePool pads 1, count_include_pad=0", 9 + 1);
  }
  {
    OneNode c("AveragePool", {1, 2, 8, 8}, {1, 2, 4, 4});
    c.ints("kernel_shape", {3, 3}).ints("strides", {2, 2}).integer("ceil_mode", 1);
    expect_within_rounding_bound(c, "AveragePool ceil_mode", 9 + 1);
  }
  {
    OneNode c("GlobalAveragePool", {2, 5, 7, 6}, {2, 5, 1, 1});
    expect_within_rounding_bound(c, "GlobalAveragePool", 7 * 6 + 1);
  }
  {
    OneNode c("GlobalMaxPool", {2, 5, 7, 6}, {2, 5, 1, 1});
    expect_agrees(c, "GlobalMaxPool", 0);
  }
}

TEST(Xnnpack, BinaryOperatorsBroadcastLikeOnnx) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min"}) {
    {
      OneNode c(op, {2, 3, 4, 5}, {2, 3, 4, 5});
      c.weight({3, 1, 1}, 1.0f);
      if (std::string(op) == "Div") c.range(0.5f, 2.0f);
      expect_agrees(c, std::string(op) + " [2,3,4,5] by [3,1,1]", 1e-7);
    }
    {
      // The first operand broadcast: the model feeds the small one first.
      OneNode c(op, {1, 5}, {3, 4, 5});
      c.input(c.b.weight("big", {3, 4, 5}, 2.0f));
      if (std::string(op) == "Div") c.range(0.5f, 2.0f);
      expect_agrees(c, std::string(op) + " [1,5] by [3,4,5]", 1e-7);
    }
  }
}

TEST(Xnnpack, UnaryOperatorsAgreeWithTheOracle) {
  struct U {
    const char* op;
    float lo, hi;
    double tol;
  };
  for (const U& u :
       {U{"Relu", -2, 2, 0}, U{"Abs", -2, 2, 0}, U{"Neg", -2, 2, 0}, U{"Floor", -4, 4, 0},
        U{"Ceil", -4, 4, 0}, U{"Round", -4, 4, 0}, U{"Sqrt", 0, 4, 0x1p-23},
        U{"Sigmoid", -6, 6, 1e-5}, U{"HardSwish", -5, 5, 1e-5}, U{"Elu", -3, 3, 1e-5}}) {
    // HardSwish is new in opset 14.
    OneNode c(u.op, {2, 3, 5, 7}, {2, 3, 5, 7}, std::string(u.op) == "HardSwish" ? 14 : 13);
    c.range(u.lo, u.hi);
    expect_agrees(c, u.op, u.tol);
  }
  {
    OneNode c("LeakyRelu", {2, 3, 5, 7}, {2, 3, 5, 7});
    c.real("alpha", 0.2f).range(-2, 2);
    expect_agrees(c, "LeakyRelu", 1e-7);
  }
  {
    OneNode c("Softmax", {3, 4, 10}, {3, 4, 10});
    c.range(-5, 5);
    expect_agrees(c, "Softmax last axis", 1e-5);
  }
  {
    OneNode c("PRelu", {2, 4, 3, 3}, {2, 4, 3, 3});
    c.weight({4, 1, 1}, 0.5f).range(-2, 2);
    expect_agrees(c, "PRelu per channel", 1e-7);
  }
}

// Clip's bounds: attributes before opset 11, inputs after (torch exports them as Constant nodes).
TEST(Xnnpack, ClipTakesConstantOrAttributeBounds) {
  {
    OneNode c("Clip", {1, 4, 5, 5}, {1, 4, 5, 5}, 13);
    c.b.constant("lo", Tensor::scalar(0.0f));
    c.b.constant("hi", Tensor::scalar(6.0f));
    c.input("lo").input("hi").range(-8, 8);
    c.b.g->mutable_node()->SwapElements(0, 2);  // the Constant nodes first: topological order
    expect_agrees(c, "Clip opset 13, Constant bounds", 0);
  }
  {
    OneNode c("Clip", {1, 4, 5, 5}, {1, 4, 5, 5}, 13);
    c.input("").input(c.b.weight("hi", {}, 1.0f)).range(-8, 8);
    expect_agrees(c, "Clip opset 13, max only", 0);
  }
  {
    OneNode c("Clip", {1, 4, 5, 5}, {1, 4, 5, 5}, 6);
    c.real("min", -1.0f).real("max", 2.0f).range(-3, 3);
    expect_agrees(c, "Clip opset 6 attributes", 0);
  }
}

// Every layer within a bound of the operations, not of one CPU's kernels. Errors add up along the
// graph: to first order a value is within gamma_n of the exact one, times the same value computed
// on |weights| (X is in [0, 1)), where n counts the terms summed on the way from X (each
// convolution K + 1, the residual add 1, the average 64 + 1, fc 16 + 1; Relu, MaxPool and Flatten
// add none). Softmax moves each probability by at most p_i (2 max_j |error of logit j| + its own
// error), its own taken as the single-Softmax allowance of UnaryOperatorsAgreeWithTheOracle.
TEST(Xnnpack, SmallConvnetAgreesLayerByLayer) {
  TempDir dir;
  auto model = load_model(save(small_convnet(), dir.path.string(), "convnet.onnx"));
  auto magnitudes =
      load_model(save(with_abs_weights(small_convnet()), dir.path.string(), "abs.onnx"));
  ASSERT_TRUE(model.ok() && magnitudes.ok());
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 7)}};
  Outcome oracle = run_platform(kOracle, *model, feeds);
  Outcome sum_abs = run_platform(kOracle, *magnitudes, feeds);
  ASSERT_TRUE(oracle.status.ok()) << oracle.status.to_string();
  ASSERT_TRUE(sum_abs.status.ok()) << sum_abs.status.to_string();
  const std::map<std::string, int64_t> terms = {
      {"c1", 28},  {"r1", 28},  {"p1", 28},  {"c2", 28 + 145},        {"a1", 174},
      {"r2", 174}, {"g1", 239}, {"f1", 239}, {"logits", 239 + 16 + 1}};
  const Tensor& logits = sum_abs.trace.at("logits");
  double logit_error = 0;
  for (int64_t i = 0; i < logits.numel(); ++i)
    logit_error = std::max(logit_error, fp32_gamma(terms.at("logits")) * logits.as_double(i));
  for (const std::string spec : {"xnnpack", "xnnpack:threads=2"}) {
    Outcome o = run_platform(spec, *model, feeds);
    ASSERT_TRUE(o.status.ok()) << spec << ": " << o.status.to_string();
    for (const auto& [value, t] : o.trace) {
      ASSERT_TRUE(oracle.trace.count(value)) << value;
      if (value == "probs") continue;
      ASSERT_TRUE(terms.count(value)) << value;
      EXPECT_LE(bound_share(t, oracle.trace.at(value), sum_abs.trace.at(value),
                            fp32_gamma(terms.at(value))),
                1.0)
          << spec << " " << value;
    }
    const Tensor& probs = o.outputs[0].tensor;
    const Tensor& want = oracle.outputs[0].tensor;
    for (int64_t i = 0; i < probs.numel(); ++i) {
      const double p = want.as_double(i);
      EXPECT_LE(std::abs(probs.as_double(i) - p), p * (2 * logit_error + 1e-5)) << spec << " " << i;
    }
    std::map<std::string, std::string> note;
    for (const auto& [node, r] : o.reports) note[node] = r.note;
    EXPECT_EQ(note["flatten"], "data movement (reference kernel)");
    EXPECT_EQ(note["fc"], "xnn:fully_connected_nc_f32") << spec;
  }
}

TEST(Xnnpack, UnmappedOperatorsAreRefusedAndFallBackToRef) {
  TempDir dir;
  GraphBuilder b;
  b.io(true, "X", {1, 4, 5, 5});
  b.io(false, "Y", {1, 4, 5, 5});
  b.node("Relu", "relu", {"X"}, {"r"});
  b.node("Tanh", "tanh", {"r"}, {"t"});
  b.node("Erf", "erf", {"t"}, {"Y"});
  auto model = load_model(save(b.model, dir.path.string(), "erf.onnx"));
  ASSERT_TRUE(model.ok());
  const std::map<std::string, Tensor> feeds = {{"X", uniform({1, 4, 5, 5}, 3)}};

  auto plain = make_backend(*parse_platform_spec("xnnpack"));
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  auto why = (*plain)->unsupported_nodes_of(*model);
  ASSERT_EQ(why.size(), 2u);
  EXPECT_NE(why[0].second.message().find("Tanh 'tanh': no f32 XNNPACK operator for Tanh"),
            std::string::npos)
      << why[0].second.message();
  EXPECT_NE(why[1].second.message().find("Erf 'erf': no XNNPACK operator for Erf"),
            std::string::npos)
      << why[1].second.message();
  Outcome refused = run_platform("xnnpack", *model, feeds);
  EXPECT_EQ(refused.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status.message().find("Tanh 'tanh'"), std::string::npos);

  Outcome mixed = run_platform("xnnpack:fallback=ref", *model, feeds);
  ASSERT_TRUE(mixed.status.ok()) << mixed.status.to_string();
  Outcome ref = run_platform("ref", *model, feeds);
  // Relu is exact on both, so the reference kernels see the same input: same bits.
  EXPECT_TRUE(mixed.outputs[0].tensor.bitwise_equal(ref.outputs[0].tensor));
  ASSERT_EQ(mixed.reports.size(), 3u);
  EXPECT_EQ(mixed.reports[0].second.note, "xnn:clamp_nc_f32");
  EXPECT_EQ(mixed.reports[2].second.note.rfind("fallback=ref: ", 0), 0u);
  EXPECT_EQ((*make_backend(*parse_platform_spec("xnnpack:fallback=ref")))->name(), "xnnpack+ref");
}

// What XNNPACK cannot do is refused with the reason, by the check or when the node runs.
TEST(Xnnpack, ConfigurationsXnnpackLacksAreRefusedWithTheReason) {
  auto refused = [](OneNode& c, const std::string& reason) {
    CaseResult r = run_case(c);
    EXPECT_EQ(r.xnn.status.code(), StatusCode::kUnsupported) << reason;
    EXPECT_NE(r.xnn.status.message().find(reason), std::string::npos) << r.xnn.status.message();
    // With fallback=ref the node runs on the reference kernels.
    CaseResult mixed = run_case(c, "xnnpack:fallback=ref");
    EXPECT_TRUE(mixed.xnn.status.ok()) << mixed.xnn.status.to_string();
  };
  {
    OneNode c("Softmax", {2, 3, 4}, {2, 3, 4});
    c.integer("axis", 1);
    refused(c, "XNNPACK's softmax normalizes the last axis only");
  }
  {
    OneNode c("AveragePool", {1, 2, 6, 6}, {1, 2, 6, 6});
    c.ints("kernel_shape", {3, 3}).ints("pads", {1, 1, 1, 1}).integer("count_include_pad", 1);
    refused(c, "count_include_pad=1 and padding");
  }
  {
    OneNode c("Gemm", {3, 4}, {3, 5});
    c.weight({4, 5}, 1.0f).real("alpha", 2.0f);
    refused(c, "alpha=2");
  }
  {
    OneNode c("MatMul", {2, 3, 4}, {2, 3, 5});
    c.weight({2, 4, 5}, 1.0f);
    refused(c, "no batched matrix multiply");
  }
  {
    OneNode c("MaxPool", {1, 2, 6, 6}, {1, 2, 3, 3});
    c.ints("kernel_shape", {1, 1}).ints("strides", {2, 2});
    refused(c, "a 1x1 pooling window, which XNNPACK refuses");
  }
  {
    OneNode c("Clip", {1, 4, 5, 5}, {1, 4, 5, 5}, 6);
    c.real("min", 1.0f).real("max", 1.0f);
    refused(c, "Clip with min 1 not below max 1");
  }
  {
    OneNode c("Conv", {1, 2, 4, 4, 4}, {1, 2, 2, 2, 2});
    c.weight({2, 2, 3, 3, 3}, 1.0f).ints("kernel_shape", {3, 3, 3});
    refused(c, "not 3-D");
  }
}

// XNNPACK's own refusals become Status values naming the node and the call.
TEST(Xnnpack, XnnStatusesNameTheNodeAndTheCall) {
  Node node;
  node.op_type = "Conv";
  node.name = "c7";
  const Status refused =
      xnnpack::check(xnn_status_invalid_parameter, node, "xnn_create_convolution2d_nhwc_f32");
  EXPECT_EQ(refused.code(), StatusCode::kUnsupported);
  EXPECT_EQ(refused.message(),
            "Conv 'c7': XNNPACK's xnn_create_convolution2d_nhwc_f32 refused the node's parameters "
            "(xnn_status_invalid_parameter)");
  EXPECT_EQ(xnnpack::check(xnn_status_out_of_memory, node, "x").code(),
            StatusCode::kResourceExhausted);
  EXPECT_EQ(xnnpack::check(xnn_status_uninitialized, node, "x").code(), StatusCode::kInternal);
  EXPECT_TRUE(xnnpack::check(xnn_status_success, node, "x").ok());
}

TEST(Xnnpack, KnobsAreValidated) {
  auto threads = make_backend(*parse_platform_spec("xnnpack:threads=0"));
  ASSERT_FALSE(threads.ok());
  EXPECT_NE(threads.status().message().find("threads=0 is not valid (an integer from 1 to 256)"),
            std::string::npos)
      << threads.status().message();
  auto words = make_backend(*parse_platform_spec("xnnpack:threads=two"));
  EXPECT_NE(words.status().message().find("threads=two is not valid"), std::string::npos);
  auto fp16 = make_backend(*parse_platform_spec("xnnpack:fp16=yes"));
  EXPECT_NE(fp16.status().message().find("fp16=yes is not valid (valid values: off, on)"),
            std::string::npos)
      << fp16.status().message();
  auto key = make_backend(*parse_platform_spec("xnnpack:isa=avx2"));
  EXPECT_NE(key.status().message().find("unknown key 'isa' (valid keys: threads, fp16, fallback)"),
            std::string::npos)
      << key.status().message();
  EXPECT_TRUE(make_backend(*parse_platform_spec("xnnpack:threads=3")).ok());
}

// fp16=on: the operators XNNPACK has in f16 run on operands rounded to fp16; the rest in fp32.
TEST(Xnnpack, Fp16RunsF16OperatorsWhereTheyExist) {
  auto probe = make_backend(*parse_platform_spec("xnnpack:fp16=on"));
  if (!probe.ok()) {
    EXPECT_NE(probe.status().message().find("creates no f16 operators"), std::string::npos);
    GTEST_SKIP() << probe.status().message();
  }
  TempDir dir;
  auto model = load_model(save(small_convnet(), dir.path.string(), "convnet.onnx"));
  ASSERT_TRUE(model.ok());
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 7)}};
  Outcome oracle = run_platform(kOracle, *model, feeds);
  Outcome half = run_platform("xnnpack:fp16=on", *model, feeds);
  ASSERT_TRUE(half.status.ok()) << half.status.to_string();
  std::map<std::string, std::string> note;
  for (const auto& [node, r] : half.reports) note[node] = r.note;
  EXPECT_EQ(note["conv1"],
            "xnn:convolution2d_nhwc_f16 (NCHW->NHWC; fp32 operands rounded to fp16)");
  EXPECT_EQ(note["softmax"], "xnn:softmax_nc_f32 (fp32: no f16 operator for it in this XNNPACK)");
  // fp16 has 11 significant bits (XNNPACK's x86 f16 kernels also round every partial sum): within
  // a few 2^-11 of the oracle relative to the layer's largest value, and visibly not fp32.
  const Tensor& got = half.trace.at("c2");
  const Tensor& want = oracle.trace.at("c2");
  double err = 0, scale = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    err = std::max(err, std::abs(got.as_double(i) - want.as_double(i)));
    scale = std::max(scale, std::abs(want.as_double(i)));
  }
  std::printf("fp16 conv2: max abs error %.3g, largest value %.3g\n", err, scale);
  EXPECT_LT(err / scale, 1e-2);
  EXPECT_GT(err / scale, 1e-5);
  // Every fp16 output is an fp16 value widened to fp32.
  const Tensor& c1 = half.trace.at("c1");
  for (int64_t i = 0; i < c1.numel(); ++i) {
    const float v = c1.data<float>()[i];
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    if (std::abs(v) >= 6.2e-5f) {
      ASSERT_EQ(bits & 0x1fffu, 0u) << i << " " << v;
    }
  }
}

}  // namespace
}  // namespace ig::testing

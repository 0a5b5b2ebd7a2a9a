// The math, nan and ftz knobs of the reference backend: each changes what it should (the
// operators it names, in the documented way) and nothing else.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "../../support/run_node.h"

namespace ig::emulator_knobs {
namespace {

using testing::attr_float;
using testing::attr_ints;
using testing::run_node;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

Numerics knobs(const std::map<std::string, std::string>& options) {
  auto n = parse_numerics(options);
  EXPECT_TRUE(n.ok()) << n.status().to_string();
  return n.ok() ? *n : Numerics{};
}

Tensor run_with(const Numerics& n, const std::string& op, const std::vector<Tensor>& inputs,
                std::map<std::string, Attribute> attrs = {}, int64_t opset = 17, size_t out = 0,
                size_t num_outputs = 1) {
  auto r = run_node(op, inputs, std::move(attrs), num_outputs, opset, "", n);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return {};
  return (*r)[out].tensor;
}

Tensor floats(std::vector<float> v, Shape shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return Tensor::from_vector<float>(v, std::move(shape));
}

Tensor uniform(float lo, float hi, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return floats(std::move(v));
}

std::vector<float> values(const Tensor& t) {
  auto v = t.values<float>();
  return {v.begin(), v.end()};
}

// Distance in representable floats (same sign assumed, as everywhere below).
int64_t ulps(float a, float b) {
  return std::abs(static_cast<int64_t>(std::bit_cast<int32_t>(a)) -
                  static_cast<int64_t>(std::bit_cast<int32_t>(b)));
}

// --- math ---------------------------------------------------------------------------------------

struct MathCase {
  std::string op;
  float lo, hi;
  int64_t opset;
  bool binary;  // Pow: exponent input in [-2, 2]
};

// Every operator the knob names: math=fast changes some bits of each (its approximations are not
// libm's) and stays within 1e-5 (absolute below 1, relative above) of libm.
TEST(MathKnob, FastChangesEveryMathOperatorWithinItsErrorBound) {
  const std::vector<MathCase> cases = {{"Exp", -10, 10, 17, false},
                                       {"Log", 0.01f, 100, 17, false},
                                       {"Tanh", -5, 5, 17, false},
                                       {"Erf", -3, 3, 17, false},
                                       {"Sigmoid", -10, 10, 17, false},
                                       {"Pow", 0.1f, 10, 17, true},
                                       {"Softmax", -5, 5, 17, false},
                                       {"LogSoftmax", -5, 5, 17, false},
                                       {"Gelu", -5, 5, 20, false},
                                       {"Softplus", -10, 10, 17, false},
                                       {"Elu", -5, 5, 17, false},
                                       {"Selu", -5, 5, 17, false},
                                       {"Celu", -5, 5, 17, false},
                                       {"Mish", -5, 5, 18, false},
                                       {"ReduceLogSumExp", -1, 1, 17, false}};
  const Numerics libm = knobs({}), fast = knobs({{"math", "fast"}});
  for (const MathCase& c : cases) {
    SCOPED_TRACE(c.op);
    // 64 rows of 8, so the row-wise operators (Softmax, ReduceLogSumExp) give 64 results.
    std::vector<Tensor> in = {uniform(c.lo, c.hi, 512, 7).reshaped({64, 8})};
    if (c.binary) in.push_back(uniform(-2, 2, 512, 8).reshaped({64, 8}));
    std::map<std::string, Attribute> attrs;
    if (c.op == "ReduceLogSumExp") attrs["axes"] = attr_ints({1});
    const std::vector<float> ref = values(run_with(libm, c.op, in, attrs, c.opset));
    const std::vector<float> got = values(run_with(fast, c.op, in, attrs, c.opset));
    ASSERT_EQ(ref.size(), got.size());
    int differing = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      differing += std::bit_cast<uint32_t>(ref[i]) != std::bit_cast<uint32_t>(got[i]);
      EXPECT_LE(std::fabs(got[i] - ref[i]), 1e-5f * std::max(1.0f, std::fabs(ref[i]))) << i;
    }
    EXPECT_GT(differing, 0);
  }
}

TEST(MathKnob, LeavesOperatorsWithoutElementaryFunctionsBitIdentical) {
  const Tensor x = uniform(-10, 10, 256, 3), y = uniform(-10, 10, 256, 4);
  for (const char* lib : {"sleef-u10", "sleef-u35", "fast"}) {
    SCOPED_TRACE(lib);
    const Numerics n = knobs({{"math", lib}});
    for (const char* op : {"Relu", "Sqrt", "Abs"}) {
      EXPECT_TRUE(run_with(n, op, {x}).bitwise_equal(run_with({}, op, {x}))) << op;
    }
    EXPECT_TRUE(run_with(n, "Add", {x, y}).bitwise_equal(run_with({}, "Add", {x, y})));
  }
}

// SLEEF's u10 functions are within 1 ulp of the correctly rounded result (double libm rounded
// to float stands in for it); u35 within 4 where SLEEF has a u35 variant (log, tanh).
TEST(MathKnob, SleefStaysWithinItsUlpBound) {
  struct Case {
    std::string op;
    float lo, hi;
    double (*ref)(double);
  };
  const std::vector<Case> cases = {{"Exp", -80, 80, [](double v) { return std::exp(v); }},
                                   {"Log", 1e-6f, 1e6f, [](double v) { return std::log(v); }},
                                   {"Tanh", -8, 8, [](double v) { return std::tanh(v); }},
                                   {"Erf", -3, 3, [](double v) { return std::erf(v); }}};
  for (const auto& [lib, bound] : {std::pair<const char*, int64_t>{"sleef-u10", 1},
                                   std::pair<const char*, int64_t>{"sleef-u35", 4}}) {
    const Numerics n = knobs({{"math", lib}});
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(lib) + " " + c.op);
      const Tensor x = uniform(c.lo, c.hi, 2000, 11);
      const std::vector<float> got = values(run_with(n, c.op, {x}));
      const std::vector<float> in = values(x);
      int64_t worst = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        const float want = static_cast<float>(c.ref(static_cast<double>(in[i])));
        if (std::signbit(want) == std::signbit(got[i]))
          worst = std::max(worst, ulps(want, got[i]));
        else
          EXPECT_EQ(got[i], want) << in[i];  // only zeros may cross signs
      }
      EXPECT_LE(worst, bound);
    }
  }
}

// --- nan ----------------------------------------------------------------------------------------

TEST(NanKnob, MaxAndMinTakeTheNumberUnderIgnore) {
  const Numerics propagate = knobs({}), ignore = knobs({{"nan", "ignore"}});
  const Tensor a = floats({kNaN, 1, kNaN, 2}), b = floats({1, kNaN, kNaN, 3});
  const std::vector<float> p = values(run_with(propagate, "Max", {a, b}));
  EXPECT_TRUE(std::isnan(p[0]) && std::isnan(p[1]) && std::isnan(p[2]));
  EXPECT_EQ(p[3], 3);
  const std::vector<float> i = values(run_with(ignore, "Max", {a, b}));
  EXPECT_EQ(i[0], 1);
  EXPECT_EQ(i[1], 1);
  EXPECT_TRUE(std::isnan(i[2]));  // all NaN stays NaN
  EXPECT_EQ(i[3], 3);
  const std::vector<float> m = values(run_with(ignore, "Min", {a, b}));
  EXPECT_EQ(m[0], 1);
  EXPECT_EQ(m[1], 1);
  EXPECT_TRUE(std::isnan(m[2]));
  EXPECT_EQ(m[3], 2);
}

TEST(NanKnob, MaxPoolTakesTheMaxOfTheNumbersUnderIgnore) {
  // One 2x2 window: NaN first, the max (3) at flat index 2.
  const Tensor x = floats({kNaN, 1, 3, 2}, {1, 1, 2, 2});
  const std::map<std::string, Attribute> attrs = {{"kernel_shape", attr_ints({2, 2})}};
  const Numerics ignore = knobs({{"nan", "ignore"}});
  EXPECT_TRUE(std::isnan(values(run_with({}, "MaxPool", {x}, attrs))[0]));
  EXPECT_EQ(values(run_with(ignore, "MaxPool", {x}, attrs))[0], 3);
  const Tensor idx = run_with(ignore, "MaxPool", {x}, attrs, 17, 1, 2);
  EXPECT_EQ(idx.values<int64_t>()[0], 2);
  EXPECT_TRUE(std::isnan(values(run_with({}, "GlobalMaxPool", {x}))[0]));
  EXPECT_EQ(values(run_with(ignore, "GlobalMaxPool", {x}))[0], 3);
  const Tensor all_nan = floats({kNaN, kNaN, kNaN, kNaN}, {1, 1, 2, 2});
  EXPECT_TRUE(std::isnan(values(run_with(ignore, "MaxPool", {all_nan}, attrs))[0]));
}

TEST(NanKnob, ReluAndClipMapNanToTheBoundUnderIgnore) {
  const Numerics ignore = knobs({{"nan", "ignore"}});
  const Tensor x = floats({kNaN, -0.0f, -2, 7});
  const std::vector<float> relu = values(run_with(ignore, "Relu", {x}));
  EXPECT_EQ(relu[0], 0);
  EXPECT_FALSE(std::signbit(relu[0]));
  EXPECT_TRUE(std::signbit(relu[1]));  // -0 is not NaN: unchanged
  EXPECT_EQ(relu[2], 0);
  EXPECT_TRUE(std::isnan(values(run_with({}, "Relu", {x}))[0]));

  const Tensor lo = Tensor::scalar<float>(1), hi = Tensor::scalar<float>(6);
  EXPECT_TRUE(std::isnan(values(run_with({}, "Clip", {x, lo, hi}))[0]));
  EXPECT_EQ(values(run_with(ignore, "Clip", {x, lo, hi})), (std::vector<float>{1, 1, 1, 6}));
  EXPECT_EQ(values(run_with(ignore, "Clip", {x, Tensor(), hi}))[0], 6);  // only max
  EXPECT_TRUE(std::isnan(values(run_with(ignore, "Clip", {x}))[0]));     // no bounds
  // A NaN bound is no bound under maxNum/minNum.
  const Tensor nan_hi = Tensor::scalar<float>(kNaN);
  EXPECT_EQ(values(run_with(ignore, "Clip", {x, lo, nan_hi})), (std::vector<float>{1, 1, 1, 7}));
  // Before opset 11 the bounds are attributes.
  const std::vector<float> legacy =
      values(run_with(ignore, "Clip", {x}, {{"min", attr_float(-1)}}, 6));
  EXPECT_EQ(legacy[0], -1);
}

TEST(NanKnob, ChangesNothingElse) {
  const Numerics ignore = knobs({{"nan", "ignore"}});
  const Tensor x = uniform(-5, 5, 64, 21), y = uniform(-5, 5, 64, 22);
  for (const char* op : {"Relu", "Sigmoid"})
    EXPECT_TRUE(run_with(ignore, op, {x}).bitwise_equal(run_with({}, op, {x}))) << op;
  EXPECT_TRUE(run_with(ignore, "Max", {x, y}).bitwise_equal(run_with({}, "Max", {x, y})));
  // ReduceMax is deliberately outside the knob: NaN propagates in both modes.
  EXPECT_TRUE(std::isnan(values(run_with(ignore, "ReduceMax", {floats({1, kNaN, 2})}))[0]));
}

// --- ftz ----------------------------------------------------------------------------------------

TEST(FtzKnob, FlushesDenormalProductsKeepingTheSign) {
  const Numerics ftz = knobs({{"ftz", "on"}});
  const Tensor a = floats({1e-20f, -1e-20f, 3, 1e-20f}), b = floats({1e-20f, 1e-20f, 0.5f, 1e20f});
  const std::vector<float> off = values(run_with({}, "Mul", {a, b}));
  ASSERT_EQ(std::fpclassify(off[0]), FP_SUBNORMAL);  // the product really is denormal
  const std::vector<float> on = values(run_with(ftz, "Mul", {a, b}));
  EXPECT_EQ(on[0], 0);
  EXPECT_FALSE(std::signbit(on[0]));
  EXPECT_EQ(on[1], 0);
  EXPECT_TRUE(std::signbit(on[1]));
  EXPECT_EQ(on[2], off[2]);
  EXPECT_EQ(on[3], off[3]);
}

TEST(FtzKnob, FlushesDenormalInputs) {
  const Numerics ftz = knobs({{"ftz", "on"}});
  const Tensor x = floats({1e-40f, -1e-40f}), big = floats({1e30f, 1e30f});
  // Without ftz the denormal input times 1e30 is about 1e-10; with ftz the input is 0.
  EXPECT_GT(values(run_with({}, "Mul", {x, big}))[0], 0);
  const std::vector<float> on = values(run_with(ftz, "Mul", {x, big}));
  EXPECT_EQ(on[0], 0);
  EXPECT_TRUE(std::signbit(on[1]));
}

TEST(FtzKnob, FlushesInitializers) {
  Model model;
  model.path = "test:ftz-initializer";
  model.opsets[""] = 17;
  model.graph.initializers["w"] = floats({1e-40f, 2});
  Node node;
  node.name = "n0";
  node.op_type = "Identity";
  node.inputs = {"w"};
  node.outputs = {"y"};
  model.graph.nodes.push_back(node);
  ValueInfo out;
  out.name = "y";
  model.graph.outputs.push_back(out);
  RefBackend backend(knobs({{"ftz", "on"}}));
  auto r = backend.run(model, {}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(values((*r)[0].tensor), (std::vector<float>{0, 2}));
  EXPECT_EQ(model.graph.initializers["w"].values<float>()[0], 1e-40f);  // the model is untouched
}

TEST(FtzKnob, CoversEveryFloatingType) {
  const Numerics ftz = knobs({{"ftz", "on"}});
  const auto check = [&](const Tensor& a, const Tensor& b) {
    SCOPED_TRACE(dtype_name(a.dtype()));
    const Tensor off = run_with({}, "Mul", {a, b}), on = run_with(ftz, "Mul", {a, b});
    ASSERT_NE(off.as_double(0), 0);  // denormal in this type
    EXPECT_EQ(on.as_double(0), 0);
    EXPECT_TRUE(std::signbit(on.as_double(1)));
    EXPECT_EQ(on.as_double(2), off.as_double(2));
  };
  check(Tensor::from_vector<double>({1e-160, -1e-160, 1.5}, {3}),
        Tensor::from_vector<double>({1e-160, 1e-160, 3}, {3}));
  check(Tensor::from_vector<Float16>({Float16(1e-3f), Float16(-1e-3f), Float16(1.5f)}, {3}),
        Tensor::from_vector<Float16>({Float16(1e-3f), Float16(1e-3f), Float16(3)}, {3}));
  check(Tensor::from_vector<BFloat16>({BFloat16(1e-20f), BFloat16(-1e-20f), BFloat16(1.5f)}, {3}),
        Tensor::from_vector<BFloat16>({BFloat16(1e-20f), BFloat16(1e-20f), BFloat16(3)}, {3}));
}

TEST(FtzKnob, LeavesNormalNumbersBitIdentical) {
  const Numerics ftz = knobs({{"ftz", "on"}});
  const Tensor x = uniform(-4, 4, 256, 31), y = uniform(-4, 4, 256, 32);
  for (const char* op : {"Mul", "Add", "Div"})
    EXPECT_TRUE(run_with(ftz, op, {x, y}).bitwise_equal(run_with({}, op, {x, y}))) << op;
  for (const char* op : {"Exp", "Tanh", "Softmax"})
    EXPECT_TRUE(run_with(ftz, op, {x}).bitwise_equal(run_with({}, op, {x}))) << op;
}

}  // namespace
}  // namespace ig::emulator_knobs

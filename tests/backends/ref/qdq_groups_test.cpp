// qdq=int: a DequantizeLinear -> Conv -> Relu -> QuantizeLinear group runs as one integer kernel,
// reported as its QuantizeLinear covering the group; `explain` finds the integer knobs that
// reproduce such a group bit for bit and names their cause.
#include <gtest/gtest.h>

#include "../../support/run_node.h"
#include "analysis/explain/explain.h"
#include "backends/ref/ref_backend.h"

namespace ig {
namespace {

Node node(const std::string& name, const std::string& op, std::vector<std::string> in,
          std::vector<std::string> out, std::map<std::string, Attribute> attrs = {}) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attributes = std::move(attrs);
  return n;
}

// Deterministic bytes over the whole range, so that u8 x s8 pair sums exceed int16.
template <typename T>
Tensor spread(const Shape& shape, uint32_t seed, int lo, int hi) {
  std::vector<T> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<T>(lo + static_cast<int>((seed >> 8) % static_cast<uint32_t>(hi - lo + 1)));
  }
  return Tensor::from_vector<T>(v, shape);
}

// xq (u8, fed) -> DQ -> Conv(3x3, pads 1; DQ'd s8 per-channel weights, int32 bias) -> Relu -> Q.
Model qdq_conv_model() {
  Model m;
  m.path = "test:qdq_conv";
  m.opsets[""] = 13;
  Graph& g = m.graph;
  g.initializers["xs"] = Tensor::scalar<float>(0.02f);
  g.initializers["xz"] = Tensor::scalar<uint8_t>(128);
  g.initializers["wq"] = spread<int8_t>({4, 6, 3, 3}, 3, -127, 127);
  g.initializers["ws"] = Tensor::from_vector<float>({0.01f, 0.02f, 0.015f, 0.005f}, {4});
  g.initializers["wz"] = Tensor::from_vector<int8_t>({0, 0, 0, 0}, {4});
  g.initializers["bq"] = Tensor::from_vector<int32_t>({100, -2000, 0, 5000}, {4});
  g.initializers["bs"] = Tensor::from_vector<float>({0.0002f, 0.0004f, 0.0003f, 0.0001f}, {4});
  g.initializers["ys"] = Tensor::scalar<float>(0.5f);
  g.initializers["yz"] = Tensor::scalar<uint8_t>(3);
  Attribute axis0 = testing::attr_int(0);
  g.nodes = {
      node("dqx", "DequantizeLinear", {"xq", "xs", "xz"}, {"x"}),
      node("dqw", "DequantizeLinear", {"wq", "ws", "wz"}, {"w"}, {{"axis", axis0}}),
      node("dqb", "DequantizeLinear", {"bq", "bs"}, {"b"}, {{"axis", axis0}}),
      node("conv", "Conv", {"x", "w", "b"}, {"c"}, {{"pads", testing::attr_ints({1, 1, 1, 1})}}),
      node("relu", "Relu", {"c"}, {"r"}),
      node("q", "QuantizeLinear", {"r", "ys", "yz"}, {"y"})};
  for (size_t i = 0; i < g.nodes.size(); ++i) g.nodes[i].index = i;
  ValueInfo in;
  in.name = "xq";
  in.dtype = DType::kUInt8;
  g.inputs = {in};
  ValueInfo out;
  out.name = "y";
  g.outputs = {out};
  return m;
}

struct Traced {
  Tensor y;
  std::vector<std::string> nodes, covers, notes;
};

Traced run(const Model& m, const std::map<std::string, std::string>& options) {
  auto n = parse_numerics(options);
  EXPECT_TRUE(n.ok()) << n.status().to_string();
  RefBackend backend(*n);
  Traced t;
  auto out = backend.run(m, {{"xq", spread<uint8_t>({1, 6, 5, 5}, 5, 0, 255)}},
                         [&](const Node& node, const std::vector<Value>&, const NodeReport& r) {
                           t.nodes.push_back(node.name);
                           t.covers.push_back(r.covers);
                           t.notes.push_back(r.note);
                         });
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  if (out.ok()) t.y = (*out)[0].tensor;
  return t;
}

// The convolution's exact int32 sums (ConvInteger on the same integers), before the bias.
Tensor int32_sums(const Model& m) {
  auto sums =
      testing::run_node("ConvInteger",
                        {spread<uint8_t>({1, 6, 5, 5}, 5, 0, 255), m.graph.initializers.at("wq"),
                         m.graph.initializers.at("xz"), m.graph.initializers.at("wz")},
                        {{"pads", testing::attr_ints({1, 1, 1, 1})}}, 1, 13);
  EXPECT_TRUE(sums.ok()) << sums.status().to_string();
  return sums.ok() ? (*sums)[0].tensor : Tensor();
}

TEST(QdqGroups, RunAsOneIntegerKernelReportedAsTheirQuantizeLinear) {
  const Model m = qdq_conv_model();
  const Traced plain = run(m, {});
  EXPECT_EQ(plain.nodes, (std::vector<std::string>{"dqx", "dqw", "dqb", "conv", "relu", "q"}));
  const Traced fused = run(m, {{"qdq", "int"}});
  ASSERT_EQ(fused.nodes, (std::vector<std::string>{"q"}));
  EXPECT_EQ(fused.covers[0], "dqx,dqw,dqb,conv,relu,q");
  EXPECT_EQ(fused.notes[0].rfind("qdq=int: QLinearConv", 0), 0u) << fused.notes[0];
  // The group equals QLinearConv on the same integers, clamped at the zero point (Relu).
  auto q = testing::run_node(
      "QLinearConv",
      {spread<uint8_t>({1, 6, 5, 5}, 5, 0, 255), m.graph.initializers.at("xs"),
       m.graph.initializers.at("xz"), m.graph.initializers.at("wq"), m.graph.initializers.at("ws"),
       m.graph.initializers.at("wz"), m.graph.initializers.at("ys"), m.graph.initializers.at("yz"),
       m.graph.initializers.at("bq")},
      {{"pads", testing::attr_ints({1, 1, 1, 1})}}, 1, 13);
  ASSERT_TRUE(q.ok()) << q.status().to_string();
  const Tensor& want = (*q)[0].tensor;
  for (int64_t i = 0; i < want.numel(); ++i)
    ASSERT_EQ(fused.y.data<uint8_t>()[i], std::max<uint8_t>(want.data<uint8_t>()[i], 3)) << i;
  // The saturating kernel says how many pair sums it clipped, and changes outputs.
  const Traced sat = run(m, {{"qdq", "int"}, {"madd", "sat16"}});
  EXPECT_NE(sat.notes[0].find("pair sums saturated"), std::string::npos) << sat.notes[0];
  int64_t differ = 0;
  for (int64_t i = 0; i < want.numel(); ++i)
    differ += sat.y.data<uint8_t>()[i] != fused.y.data<uint8_t>()[i];
  EXPECT_GT(differ, 0);
}

TEST(QdqGroups, ExplainFindsTheSaturatingKernelAndNamesItsCause) {
  const Model m = qdq_conv_model();
  ExplainProblem p;
  p.model = &m;
  p.node = &m.graph.nodes[0];
  p.whole_model = true;
  p.group = "dqx,dqw,dqb,conv,relu,q";
  p.target = run(m, {{"qdq", "int"}, {"madd", "sat16"}}).y;
  p.inputs["xq"] = Value::of(spread<uint8_t>({1, 6, 5, 5}, 5, 0, 255));
  auto r = explain_node(p, 50);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_TRUE(r->exact);
  EXPECT_EQ(r->emulator, "ref:madd=sat16,qdq=int");
  EXPECT_EQ(r->causes, (std::vector<std::string>{"int8-saturation", "integer-kernel"}));
}

}  // namespace
}  // namespace ig

namespace ig {
namespace {

// xq [2, 3, 8] -> DQ -> MatMul(DQ'd s8 W [8, 5], per column) -> Q: one QGemm group, within one
// step of the spec's float arithmetic and exact when the sums need no rounding.
TEST(QdqGroups, MatMulGroupsRunOnIntegersPerOutputChannel) {
  Model m;
  m.path = "test:qdq_matmul";
  m.opsets[""] = 13;
  Graph& g = m.graph;
  g.initializers["xs"] = Tensor::scalar<float>(0.05f);
  g.initializers["xz"] = Tensor::scalar<uint8_t>(120);
  g.initializers["wq"] = spread<int8_t>({8, 5}, 11, -127, 127);
  g.initializers["ws"] = Tensor::from_vector<float>({0.01f, 0.02f, 0.03f, 0.04f, 0.05f}, {5});
  g.initializers["wz"] = Tensor::from_vector<int8_t>({0, 0, 0, 0, 0}, {5});
  g.initializers["ys"] = Tensor::scalar<float>(0.25f);
  g.initializers["yz"] = Tensor::scalar<int8_t>(-3);
  g.nodes = {
      node("dqx", "DequantizeLinear", {"xq", "xs", "xz"}, {"x"}),
      node("dqw", "DequantizeLinear", {"wq", "ws", "wz"}, {"w"}, {{"axis", testing::attr_int(1)}}),
      node("mm", "MatMul", {"x", "w"}, {"c"}),
      node("q", "QuantizeLinear", {"c", "ys", "yz"}, {"y"})};
  for (size_t i = 0; i < g.nodes.size(); ++i) g.nodes[i].index = i;
  ValueInfo in;
  in.name = "xq";
  in.dtype = DType::kUInt8;
  g.inputs = {in};
  ValueInfo out;
  out.name = "y";
  g.outputs = {out};
  const Tensor xq = spread<uint8_t>({2, 3, 8}, 13, 0, 255);
  auto run_on = [&](const std::map<std::string, std::string>& options, std::string* covers) {
    RefBackend backend(*parse_numerics(options));
    auto y = backend.run(m, {{"xq", xq}},
                         [&](const Node&, const std::vector<Value>&, const NodeReport& r) {
                           if (covers) *covers = r.covers;
                         });
    EXPECT_TRUE(y.ok()) << y.status().to_string();
    return (*y)[0].tensor;
  };
  std::string covers;
  const Tensor fused = run_on({{"qdq", "int"}}, &covers);
  const Tensor plain = run_on({}, nullptr);
  EXPECT_EQ(covers, "dqx,dqw,mm,q");
  ASSERT_EQ(fused.shape(), (Shape{2, 3, 5}));
  for (int64_t r = 0; r < 6; ++r) {
    for (int64_t n = 0; n < 5; ++n) {
      int32_t acc = 0;
      for (int64_t k = 0; k < 8; ++k)
        acc +=
            (xq.data<uint8_t>()[r * 8 + k] - 120) * g.initializers["wq"].data<int8_t>()[k * 5 + n];
      const float scale = 0.05f * g.initializers["ws"].data<float>()[n] / 0.25f;
      const int want = std::clamp(
          static_cast<int>(std::nearbyint(static_cast<float>(acc) * scale)) - 3, -128, 127);
      ASSERT_EQ(fused.data<int8_t>()[r * 5 + n], want) << r << "," << n;
      EXPECT_LE(std::abs(fused.data<int8_t>()[r * 5 + n] - plain.data<int8_t>()[r * 5 + n]), 1);
    }
  }
}

}  // namespace
}  // namespace ig

namespace ig {
namespace {

// A Clip (ReLU6, bounds as initializers) before the QuantizeLinear joins the group as a clamp at
// the quantized bounds: Q(0) = 3 and Q(1.0) = 1.0 / 0.5 + 3 = 5.
TEST(QdqGroups, AClipBecomesAClampAtItsQuantizedBounds) {
  Model m = qdq_conv_model();
  m.graph.initializers["lo"] = Tensor::scalar<float>(0.0f);
  m.graph.initializers["hi"] = Tensor::scalar<float>(1.0f);
  m.graph.nodes[4] = node("relu", "Clip", {"c", "lo", "hi"}, {"r"});
  m.graph.nodes[4].index = 4;
  const Traced plain = run(m, {});
  const Traced fused = run(m, {{"qdq", "int"}});
  ASSERT_EQ(fused.nodes, (std::vector<std::string>{"q"}));
  EXPECT_EQ(fused.covers[0], "dqx,dqw,dqb,conv,relu,q");
  int64_t at_bounds = 0;
  for (int64_t i = 0; i < fused.y.numel(); ++i) {
    const uint8_t v = fused.y.data<uint8_t>()[i];
    ASSERT_GE(v, 3);
    ASSERT_LE(v, 5);
    at_bounds += v == 3 || v == 5;
    EXPECT_LE(std::abs(v - plain.y.data<uint8_t>()[i]), 1) << i;
  }
  EXPECT_GT(at_bounds, 0);
}

}  // namespace
}  // namespace ig

namespace ig {
namespace {

// Without a QuantizeLinear after it (Q/DQ on the inputs of Conv only, as TensorRT's explicit
// quantization and ModelOpt write it) the group still runs as one integer kernel and writes float:
// the int32 sum, bias included, times x_scale * w_scale rounded once to float, then the Relu.
TEST(QdqGroups, GroupsWithoutAQuantizeLinearWriteTheRescaledSumsInFloat) {
  Model m = qdq_conv_model();
  m.graph.nodes.pop_back();  // the QuantizeLinear
  m.graph.outputs[0].name = "r";
  const Traced fused = run(m, {{"qdq", "int"}});
  ASSERT_EQ(fused.nodes, (std::vector<std::string>{"relu"}));
  EXPECT_EQ(fused.covers[0], "dqx,dqw,dqb,conv,relu");
  ASSERT_EQ(fused.y.dtype(), DType::kFloat32);
  const Tensor acc = int32_sums(m);
  ASSERT_TRUE(acc.defined());
  const auto& g = m.graph;
  const Traced plain = run(m, {});
  for (int64_t i = 0; i < acc.numel(); ++i) {
    const int64_t c = i / 25;
    const float scale = static_cast<float>(0.02 * double(g.initializers.at("ws").data<float>()[c]));
    const float want = std::max(
        0.0f,
        static_cast<float>(acc.data<int32_t>()[i] + g.initializers.at("bq").data<int32_t>()[c]) *
            scale);
    ASSERT_EQ(fused.y.data<float>()[i], want) << i;
    EXPECT_NEAR(plain.y.data<float>()[i], want, 1e-5f * std::max(1.0f, std::abs(want))) << i;
  }
  // The integer knobs reach it: saturated pairs change the floats.
  const Traced sat = run(m, {{"qdq", "int"}, {"madd", "sat16"}});
  EXPECT_NE(sat.notes[0].find("pair sums saturated"), std::string::npos) << sat.notes[0];
  int64_t differ = 0;
  for (int64_t i = 0; i < acc.numel(); ++i)
    differ += sat.y.data<float>()[i] != fused.y.data<float>()[i];
  EXPECT_GT(differ, 0);
}

}  // namespace
}  // namespace ig

namespace ig {
namespace {

// NNCF writes the bias as a float initializer, no DequantizeLinear: the group still runs as one
// integer kernel, the bias joining the float sum in the accumulator's units, b / (x_scale *
// w_scale) rounded to float, as oneDNN takes it.
TEST(QdqGroups, AFloatBiasJoinsTheSumInTheAccumulatorsUnits) {
  Model m = qdq_conv_model();
  const std::vector<float> fb = {0.03f, -0.7f, 0.0f, 1.25f};
  m.graph.initializers["bf"] = Tensor::from_vector<float>(fb, {4});
  m.graph.nodes.erase(m.graph.nodes.begin() + 2);  // dqb
  m.graph.nodes[2].inputs[2] = "bf";
  for (size_t i = 0; i < m.graph.nodes.size(); ++i) m.graph.nodes[i].index = i;
  const Traced fused = run(m, {{"qdq", "int"}});
  ASSERT_EQ(fused.nodes, (std::vector<std::string>{"q"}));
  EXPECT_EQ(fused.covers[0], "dqx,dqw,conv,relu,q");
  const Tensor acc = int32_sums(m);
  ASSERT_TRUE(acc.defined());
  const float* ws = m.graph.initializers.at("ws").data<float>();
  for (int64_t i = 0; i < acc.numel(); ++i) {
    const int64_t c = i / 25;
    const float bias = static_cast<float>(double(fb[c]) / (double(0.02f) * double(ws[c])));
    const float v = (static_cast<float>(acc.data<int32_t>()[i]) + bias) * (0.02f * ws[c] / 0.5f);
    const int want = std::clamp(static_cast<int>(std::nearbyint(v)) + 3, 3, 255);
    ASSERT_EQ(fused.y.data<uint8_t>()[i], want) << i;
  }
}

}  // namespace
}  // namespace ig

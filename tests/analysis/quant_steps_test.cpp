// Errors in quantization steps (analysis/precision/quant_steps.h) and origins judged by them
// (analysis/oracle/origins.h), on hand-made graphs and tensors.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/oracle/origins.h"
#include "analysis/precision/quant_steps.h"

namespace ig {
namespace {

Node node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.name = out[0] + "_node";
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// x -> QuantizeLinear(s, z) -> q -> DequantizeLinear(s, z) -> d, s = 0.1; w (int8 per channel,
// scales ws along axis 0) -> DequantizeLinear -> wd; q -> QLinearConv(..., y_scale s2) -> y.
Graph qdq_graph() {
  Graph g;
  g.initializers["s"] = Tensor::scalar<float>(0.1f);
  g.initializers["z"] = Tensor::scalar<uint8_t>(128);
  g.initializers["ws"] = Tensor::from_vector<float>({0.1f, 0.5f}, {2});
  g.initializers["s2"] = Tensor::scalar<float>(0.25f);
  g.nodes = {node("QuantizeLinear", {"x", "s", "z"}, {"q"}),
             node("DequantizeLinear", {"q", "s", "z"}, {"d"}),
             node("DequantizeLinear", {"w", "ws"}, {"wd"}),
             node("QLinearConv", {"q", "s", "z", "w", "ws", "z", "s2", "z"}, {"y"})};
  g.nodes[2].attributes["axis"].kind = Attribute::Kind::kInt;
  g.nodes[2].attributes["axis"].i = 0;
  return g;
}

Tensor grid(int64_t n, float step) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i % 7) * step;
  return Tensor::from_vector<float>(v, {n});
}

TEST(QuantSteps, ADequantizedValueThreeStepsOffInTwoOfAHundred) {
  const Graph g = qdq_graph();
  const Tensor a = grid(100, 0.1f);
  Tensor b = a.clone();
  b.data<float>()[10] += 3 * 0.1f;
  b.data<float>()[50] -= 3 * 0.1f;
  const auto s = quant_steps_off(g, "d", a, b);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->steps_max, 3);  // snapped: 3 * 0.1f in fp32 is not exactly 3 steps
  EXPECT_DOUBLE_EQ(s->steps_share, 0.02);
  EXPECT_EQ(s->differing, 2);
  EXPECT_EQ(s->elements, 100);
  EXPECT_FLOAT_EQ(s->step, 0.1f);
}

TEST(QuantSteps, AnIntegerTensorIsOffByItsIntegerDifference) {
  const Graph g = qdq_graph();
  const auto a = Tensor::from_vector<int8_t>({1, 2, 3, -4}, {4});
  const auto b = Tensor::from_vector<int8_t>({1, 2, 8, -4}, {4});
  for (const char* v : {"q", "y", "not_in_the_graph"}) {
    const auto s = quant_steps_off(g, v, a, b);
    ASSERT_TRUE(s) << v;
    EXPECT_EQ(s->steps_max, 5);
    EXPECT_DOUBLE_EQ(s->steps_share, 0.25);
    EXPECT_EQ(s->step, 1);
  }
  // The index knows the real step of QuantizeLinear's and QLinearConv's integers.
  const QuantIndex index = quant_index(g);
  EXPECT_EQ(index.at("q").scales, std::vector<double>{double(0.1f)});
  EXPECT_EQ(index.at("y").scales, std::vector<double>{double(0.25f)});
}

TEST(QuantSteps, PerChannelScalesStepEachChannel) {
  const Graph g = qdq_graph();
  // wd: [2, 3], channel 0 in steps of 0.1, channel 1 in steps of 0.5; both 0.5 off at one element.
  const auto a = Tensor::from_vector<float>({0, 0, 0, 0, 0, 0}, {2, 3});
  const auto b = Tensor::from_vector<float>({0.5f, 0, 0, 0, 0.5f, 0}, {2, 3});
  const auto s = quant_steps_off(g, "wd", a, b);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->steps_max, 5);  // 0.5 / 0.1 in channel 0; channel 1's is 1 step
  EXPECT_DOUBLE_EQ(s->steps_share, 2.0 / 6);
  EXPECT_FLOAT_EQ(s->step, 0.1f);
}

TEST(QuantSteps, AFloatValueThatIsNotDequantizedHasNoSteps) {
  const Graph g = qdq_graph();
  const auto a = Tensor::from_vector<float>({1, 2}, {2});
  const auto b = Tensor::from_vector<float>({1, 2.5f}, {2});
  EXPECT_FALSE(quant_steps_off(g, "x", a, b));
  EXPECT_FALSE(quant_steps_off(g, "unknown", a, b));
  // Against an fp64 oracle a dequantized value is measured the same way.
  const auto o = Tensor::from_vector<double>({1.0, 2.0}, {2});
  const auto s = steps_off(quant_index(g).at("d"), b, o);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->steps_max, 5);
}

// The span closing at a node whose output is quantized, with the given steps.
ErrorSpan span(DType dtype, double input_error, double output_error) {
  ErrorSpan s;
  s.dtype = dtype;
  s.input_error = input_error;
  s.output_error = output_error;
  return s;
}

SpanSteps steps(double out_max, double out_share, double in_max, double in_share = 0) {
  SpanSteps st;
  st.output.steps_max = out_max;
  st.output.steps_share = out_share;
  st.input_steps_max = in_max;
  st.input_steps_share = in_share;
  return st;
}

TEST(StepsOrigins, ARareBoundaryFlipAtAQuantizerIsNotAnOrigin) {
  // A 1e-6 relative input error (2.5e-4 of a step) flips one element of 10,000 by one step: as
  // a relative error that is 1/255 from 5e-7, a jump of 8000 that the jump rule calls born.
  const ErrorSpan s = span(DType::kFloat32, 5e-7, 1.0 / 255);
  EXPECT_TRUE(is_born(s));
  EXPECT_FALSE(is_born(s, steps(1, 1e-4, 2.5e-4)));
}

TEST(StepsOrigins, AKernelFourStepsOffIsAnOrigin) {
  // An int8 convolution 4 steps off in 61 of 200,704 elements, its inputs exact.
  const ErrorSpan s = span(DType::kUInt8, 0, 4.0 / 255);
  EXPECT_TRUE(is_born(s, steps(4, 61.0 / 200704, 0)));
  // One step in more than 1e-3 of the elements is no rare flip either.
  EXPECT_TRUE(is_born(s, steps(1, 5e-3, 0)));
  EXPECT_FALSE(is_born(s, steps(1, 1e-3, 0)));
}

TEST(StepsOrigins, StepsThatCameInWithTheInputsPropagate) {
  // Inputs a step off: a convolution spreads them over many elements and several steps.
  const ErrorSpan s = span(DType::kFloat32, 8e-3, 2e-2);
  EXPECT_FALSE(is_born(s, steps(3, 0.05, 1, 1e-4)));
  // Unless the relative error still jumps far beyond what came in.
  EXPECT_TRUE(is_born(span(DType::kFloat32, 1e-4, 0.5), steps(60, 0.9, 1, 1e-4)));
}

// q = Q(c) over 10,000 elements, measured with real tensors: c (float) carries a tiny error, q has
// one element flipped by a step.
TEST(StepsOrigins, SpanStepsMeasureAFloatInputInTheOutputsSteps) {
  const int64_t n = 10000;
  std::vector<double> oc(n);
  std::vector<float> pc(n);
  std::vector<uint8_t> oq(n), pq(n);
  for (int64_t i = 0; i < n; ++i) {
    oc[size_t(i)] = 0.1 * double(i % 200) + 0.03;
    pc[size_t(i)] = float(oc[size_t(i)] * (1 + 1e-6));
    oq[size_t(i)] = pq[size_t(i)] = uint8_t(i % 200);
  }
  pq[77] += 1;
  std::map<TensorKey, Tensor> tensors;
  auto key = [&](Tensor t) {
    const TensorKey k = TensorKey::of(t);
    tensors[k] = std::move(t);
    return k;
  };
  RepRun run, oracle;
  run.values = {{"c", key(Tensor::from_vector<float>(pc, {n}))},
                {"q", key(Tensor::from_vector<uint8_t>(pq, {n}))}};
  oracle.values = {{"c", key(Tensor::from_vector<double>(oc, {n}))},
                   {"q", key(Tensor::from_vector<uint8_t>(oq, {n}))}};
  TensorCache cache([&](const TensorKey& k) -> Expected<Tensor> { return tensors.at(k); });
  ErrorSpan s = span(DType::kUInt8, 1e-6, 1.0 / 199);
  s.inputs = {"c"};
  s.outputs = {"q"};
  QuantIndex index;
  index["q"] = {true, {0.1}, 1};
  auto st = span_steps(index, s, run, oracle, cache);
  ASSERT_TRUE(st.ok()) << st.status().message();
  ASSERT_TRUE(*st);
  EXPECT_EQ((*st)->output.steps_max, 1);
  EXPECT_DOUBLE_EQ((*st)->output.steps_share, 1e-4);
  EXPECT_TRUE((*st)->inputs_measured);
  EXPECT_LT((*st)->input_steps_max, 3e-4);  // 2e-5 off at 19.93 (and fp32), in steps of 0.1
  EXPECT_FALSE(is_born(s, *st));
  const auto j = [&] {
    OracleOrigin o;
    o.span = s;
    o.steps = *st;
    return oracle_origin_json(o);
  }();
  EXPECT_EQ(j["steps_max"], 1);
  EXPECT_DOUBLE_EQ(j["steps_share"].get<double>(), 1e-4);
  EXPECT_DOUBLE_EQ(j["step"].get<double>(), 1);
}

}  // namespace
}  // namespace ig

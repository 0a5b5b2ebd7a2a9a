// Operators of opsets 24 to 27 for caches and recurrent attention: TensorScatter, Attention's
// external cache and sliding windows, CausalConvWithState, LinearAttention. The ONNX 1.23 suite
// checks their values against the definitions (conformance.onnx_1_23_suite); here, the properties
// a decoder relies on, bit for bit: a step fed the carried state gives what the whole sequence
// gives, and masked keys count for nothing.
#include <gtest/gtest.h>

#include "../../support/run_node.h"
#include "inputs/random_input.h"

namespace ig {
namespace {

using testing::attr_int;
using testing::attr_string;
using testing::run_node;

Tensor signed_noise(Shape shape, uint64_t seed) {
  Tensor t = random_uniform_tensor(DType::kFloat32, std::move(shape), seed);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 2 * t.data<float>()[i] - 1;
  return t;
}

// Positions [from, to) of axis `axis` of a contiguous float tensor.
Tensor positions(const Tensor& t, int axis, int64_t from, int64_t to) {
  Shape shape = t.shape();
  shape[static_cast<size_t>(axis)] = to - from;
  Tensor out(DType::kFloat32, shape);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= t.dim(d);
  for (int d = axis + 1; d < t.rank(); ++d) inner *= t.dim(d);
  const int64_t n = t.dim(axis);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = from; j < to; ++j)
      for (int64_t i = 0; i < inner; ++i)
        out.data<float>()[(o * (to - from) + j - from) * inner + i] =
            t.data<float>()[(o * n + j) * inner + i];
  return out;
}

TEST(Opsets24To27, TensorScatterWritesEachBatchAtItsIndexAndWrapsWhenCircular) {
  auto cache = Tensor::from_vector<float>({0, 1, 2, 3, 10, 11, 12, 13}, {2, 4, 1});
  auto update = Tensor::from_vector<float>({-1, -2, -3, -4}, {2, 2, 1});
  auto where = Tensor::from_vector<int64_t>({1, 3}, {2});
  auto circular = run_node("TensorScatter", {cache, update, where},
                           {{"mode", attr_string("circular")}, {"axis", attr_int(1)}}, 1, 24);
  ASSERT_TRUE(circular.ok()) << circular.status().to_string();
  const auto v = (*circular)[0].tensor.values<float>();
  EXPECT_EQ(std::vector<float>(v.begin(), v.end()),
            (std::vector<float>{0, -1, -2, 3, -4, 11, 12, -3}));
  // Linear: batch 1 would write position 4 of 4.
  auto linear = run_node("TensorScatter", {cache, update, where}, {{"axis", attr_int(1)}}, 1, 24);
  ASSERT_FALSE(linear.ok());
  EXPECT_NE(linear.status().message().find("writes position 4 of a cache of 4"), std::string::npos)
      << linear.status().to_string();
  EXPECT_EQ(run_node("TensorScatter", {cache, update, where}, {}, 1, 23).status().code(),
            StatusCode::kUnsupported);
}

TEST(Opsets24To27, CausalConvStepWithTheCarriedStateGivesTheSequencesLastPosition) {
  const Tensor x = signed_noise({2, 3, 7}, 1), w = signed_noise({3, 1, 4}, 2),
               b = signed_noise({3}, 3);
  for (const char* act : {"none", "silu"}) {
    auto whole =
        run_node("CausalConvWithState", {x, w, b}, {{"activation", attr_string(act)}}, 2, 27);
    ASSERT_TRUE(whole.ok()) << whole.status().to_string();
    auto head = run_node("CausalConvWithState", {positions(x, 2, 0, 6), w, b},
                         {{"activation", attr_string(act)}}, 2, 27);
    ASSERT_TRUE(head.ok());
    auto step = run_node("CausalConvWithState", {positions(x, 2, 6, 7), w, b, (*head)[1].tensor},
                         {{"activation", attr_string(act)}}, 2, 27);
    ASSERT_TRUE(step.ok()) << step.status().to_string();
    EXPECT_TRUE((*step)[0].tensor.bitwise_equal(positions((*whole)[0].tensor, 2, 6, 7))) << act;
    EXPECT_TRUE((*step)[1].tensor.bitwise_equal((*whole)[1].tensor)) << act;
    // The state is the input's last k - 1 positions.
    EXPECT_TRUE((*whole)[1].tensor.bitwise_equal(positions(x, 2, 4, 7))) << act;
  }
  auto bad = run_node("CausalConvWithState", {x, signed_noise({3, 2, 4}, 4)}, {}, 2, 27);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("[channels, 1, k]"), std::string::npos);
}

TEST(Opsets24To27, LinearAttentionPrefillThenDecodeGivesThePrefillOfAll) {
  // Grouped: 4 query heads read 2 KV heads of size 4; gated delta rule, decay per key dim.
  const int64_t T = 5;
  const Tensor q = signed_noise({1, T, 16}, 5), k = signed_noise({1, T, 8}, 6),
               v = signed_noise({1, T, 8}, 7);
  Tensor decay = signed_noise({1, T, 8}, 8), beta = signed_noise({1, T, 2}, 9);
  for (int64_t i = 0; i < decay.numel(); ++i)
    decay.data<float>()[i] = -0.1f * std::abs(decay.data<float>()[i]);
  std::map<std::string, Attribute> attrs = {{"q_num_heads", attr_int(4)},
                                            {"kv_num_heads", attr_int(2)}};
  auto all = run_node("LinearAttention", {q, k, v, Tensor(), decay, beta}, attrs, 2, 27);
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  auto first =
      run_node("LinearAttention",
               {positions(q, 1, 0, T - 1), positions(k, 1, 0, T - 1), positions(v, 1, 0, T - 1),
                Tensor(), positions(decay, 1, 0, T - 1), positions(beta, 1, 0, T - 1)},
               attrs, 2, 27);
  ASSERT_TRUE(first.ok());
  auto last =
      run_node("LinearAttention",
               {positions(q, 1, T - 1, T), positions(k, 1, T - 1, T), positions(v, 1, T - 1, T),
                (*first)[1].tensor, positions(decay, 1, T - 1, T), positions(beta, 1, T - 1, T)},
               attrs, 2, 27);
  ASSERT_TRUE(last.ok()) << last.status().to_string();
  EXPECT_TRUE((*last)[0].tensor.bitwise_equal(positions((*all)[0].tensor, 1, T - 1, T)));
  EXPECT_TRUE((*last)[1].tensor.bitwise_equal((*all)[1].tensor));
  // The rule's inputs are checked: the linear rule takes no decay.
  attrs["update_rule"] = attr_string("linear");
  auto extra = run_node("LinearAttention", {q, k, v, Tensor(), decay}, attrs, 1, 27);
  ASSERT_FALSE(extra.ok());
  EXPECT_NE(extra.status().message().find("forbids decay"), std::string::npos);
}

TEST(Opsets24To27, AttentionPaddedKeysAndWindowsCountForNothing) {
  // [batch 2, heads 1, seq 4, head 4]; batch 0 has 2 valid keys, batch 1 all 4.
  const Tensor q = signed_noise({2, 1, 4, 4}, 10), k = signed_noise({2, 1, 4, 4}, 11),
               v = signed_noise({2, 1, 4, 4}, 12);
  auto nonpad = Tensor::from_vector<int64_t>({2, 4}, {2});
  auto padded = run_node("Attention", {q, k, v, Tensor(), Tensor(), Tensor(), nonpad}, {}, 1, 24);
  ASSERT_TRUE(padded.ok()) << padded.status().to_string();
  // Batch 0 alone with its two keys: the same bits.
  auto alone = run_node("Attention",
                        {positions(q, 0, 0, 1), positions(positions(k, 0, 0, 1), 2, 0, 2),
                         positions(positions(v, 0, 0, 1), 2, 0, 2)},
                        {}, 1, 23);
  ASSERT_TRUE(alone.ok());
  EXPECT_TRUE(positions((*padded)[0].tensor, 0, 0, 1).bitwise_equal((*alone)[0].tensor));
  // A causal window of 0 keys to the left: each query sees only its own key, so Y is V.
  auto own = run_node("Attention", {q, k, v},
                      {{"is_causal", attr_int(1)}, {"left_window_size", attr_int(0)}}, 1, 25);
  ASSERT_TRUE(own.ok()) << own.status().to_string();
  EXPECT_TRUE((*own)[0].tensor.bitwise_equal(v));
  // A past cache and an external one together are refused.
  auto both = run_node("Attention", {q, k, v, Tensor(), k, v, nonpad}, {}, 1, 24);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("cannot be combined"), std::string::npos);
}

// FlexAttention's score_mod is applied to the scores Attention computes: a Neg graph there is
// attention with the queries negated, bit for bit.
TEST(Opsets24To27, FlexAttentionScoreModActsOnAttentionsScores) {
  const Tensor q = signed_noise({1, 2, 3, 4}, 13), k = signed_noise({1, 2, 5, 4}, 14),
               v = signed_noise({1, 2, 5, 4}, 15);
  auto neg = std::make_shared<Graph>();
  neg->name = "score_mod";
  ValueInfo in, out;
  in.name = "s";
  in.dtype = DType::kFloat32;
  out.name = "t";
  out.dtype = DType::kFloat32;
  neg->inputs = {in};
  neg->outputs = {out};
  Node n;
  n.name = "neg";
  n.op_type = "Neg";
  n.inputs = {"s"};
  n.outputs = {"t"};
  neg->nodes = {n};
  Attribute mod;
  mod.kind = Attribute::Kind::kGraph;
  mod.g = neg;
  auto flex = run_node("FlexAttention", {q, k, v}, {{"score_mod", mod}}, 1, 1, "ai.onnx.preview");
  ASSERT_TRUE(flex.ok()) << flex.status().to_string();
  Tensor minus_q = q.clone();
  for (int64_t i = 0; i < q.numel(); ++i) minus_q.data<float>()[i] = -q.data<float>()[i];
  auto attention = run_node("Attention", {minus_q, k, v}, {}, 1, 23);
  ASSERT_TRUE(attention.ok()) << attention.status().to_string();
  EXPECT_TRUE((*flex)[0].tensor.bitwise_equal((*attention)[0].tensor));
  auto plain = run_node("FlexAttention", {q, k, v}, {}, 1, 1, "ai.onnx.preview");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE((*plain)[0].tensor.bitwise_equal((*flex)[0].tensor));
}

}  // namespace
}  // namespace ig

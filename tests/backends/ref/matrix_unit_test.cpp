// The matrix-unit emulator's discriminating cases, one per trait a preset stands for (the
// NVIDIA and AMD presets are checked against MMA-Sim by scripts/check-mma, the x86 ones against
// the instructions by matrix_unit_hw_test.cpp), its knobs, and MatMul/Conv running through it.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "../../support/run_node.h"
#include "analysis/explain/explain.h"
#include "backends/ref/numerics/matrix_unit.h"

namespace ig {
namespace mma_test {
namespace {

MatrixUnit unit(const std::string& options) {
  std::map<std::string, std::string> o;
  size_t pos = 0;
  while (pos < options.size()) {
    const size_t comma = options.find(',', pos);
    const std::string item = options.substr(pos, comma - pos);
    o[item.substr(0, item.find('='))] = item.substr(item.find('=') + 1);
    pos = comma == std::string::npos ? options.size() : comma + 1;
  }
  auto u = parse_matrix_unit(o);
  EXPECT_TRUE(u.ok()) << u.status().to_string();
  return u.ok() ? *u : MatrixUnit{};
}

float dot(const std::string& options, std::vector<float> a, std::vector<float> b, float c) {
  const MatrixUnit u = unit(options);
  for (float& v : a) v = mma_input(u, v);
  for (float& v : b) v = mma_input(u, v);
  return mma_dot(u, a.data(), 1, b.data(), 1, static_cast<int64_t>(a.size()), c);
}

uint32_t bits(float v) { return std::bit_cast<uint32_t>(v); }

TEST(MatrixUnit, KeptBitsSeparateAmpereFromHopper) {
  // 1 - 2^-25: Hopper keeps 25 bits below the largest exponent and truncates the sum to fp32
  // (1 - 2^-24); Ampere's 24 bits drop the small term (1.0).
  const std::vector<float> a = {1.0f, 0x1p-12f}, b = {1.0f, -0x1p-13f};
  EXPECT_EQ(bits(dot("mma=h100-fp16", a, b, 0)), 0x3f7fffffu);
  EXPECT_EQ(bits(dot("mma=a100-fp16", a, b, 0)), 0x3f800000u);
  // The same with 25 bits kept by the knob: Ampere's unit then agrees with Hopper's.
  EXPECT_EQ(bits(dot("mma=a100-fp16,mma-bits=25", a, b, 0)), 0x3f7fffffu);
}

TEST(MatrixUnit, TensorCoresTruncateWhereAnFmaChainRounds) {
  // 1 + 3 * 2^-25 rounds to 1 + 2^-23 (nearest) but truncates to 1.
  const std::vector<float> a = {1.0f, 0x3p-12f}, b = {1.0f, 0x1p-13f};
  EXPECT_EQ(bits(dot("mma=h100-fp16", a, b, 0)), 0x3f800000u);
  EXPECT_EQ(bits(dot("mma=h100-fp16,mma-out=rne,mma-bits=exact,mma-k=16", a, b, 0)), 0x3f800001u);
}

TEST(MatrixUnit, AmxChainsEvenAndOddApart) {
  // Even chain 1 + 2^-24 (a tie: 1), odd chain 2^-24 + 2^-24 = 2^-23, together 1 + 2^-23. One
  // chain in order (VDPBF16PS) loses every half-ulp term: 1.
  const std::vector<float> a = {1.0f, 0x1p-24f, 0x1p-24f, 0x1p-24f}, b = {1, 1, 1, 1};
  EXPECT_EQ(bits(dot("mma=amx-bf16", a, b, 0)), 0x3f800001u);
  EXPECT_EQ(bits(dot("mma=avx512-bf16", a, b, 0)), 0x3f800000u);
}

TEST(MatrixUnit, ArmRoundsToOddWithEbfOffAndFusesPairsWithItOn) {
  // 1 + 2^-25: round to odd sets the last bit (1 + 2^-23); nearest gives 1.
  EXPECT_EQ(bits(dot("mma=arm-bf16-ebf0", {0x1p-25f, 0.0f}, {1.0f, 1.0f}, 1.0f)), 0x3f800001u);
  EXPECT_EQ(bits(dot("mma=arm-bf16-ebf1", {0x1p-25f, 0.0f}, {1.0f, 1.0f}, 1.0f)), 0x3f800000u);
  // A subnormal product: flushed with EBF=0, kept with EBF=1.
  EXPECT_EQ(dot("mma=arm-bf16-ebf0", {0x1p-70f, 0.0f}, {0x1p-70f, 0.0f}, 0.0f), 0.0f);
  EXPECT_EQ(dot("mma=arm-bf16-ebf1", {0x1p-70f, 0.0f}, {0x1p-70f, 0.0f}, 0.0f), 0x1p-140f);
}

TEST(MatrixUnit, Avx512Fp16AccumulatesInFp16) {
  // 2048 + 1 is a tie between fp16's 2048 and 2050: nearest even keeps 2048.
  EXPECT_EQ(dot("mma=avx512-fp16", {1.0f}, {1.0f}, 2048.0f), 2048.0f);
  EXPECT_EQ(dot("mma=avx512-fp16,mma-accfmt=fp32", {1.0f}, {1.0f}, 2048.0f), 2049.0f);
}

TEST(MatrixUnit, InputsEnterAsTheUnitReadsThem) {
  // tf32 is read by truncation on NVIDIA units; fp8 saturates; fp16 rounds to nearest even.
  EXPECT_EQ(mma_input(unit("mma=h100-tf32"), 1.0f + 0x1p-11f + 0x1p-12f), 1.0f);
  EXPECT_EQ(mma_input(unit("mma=h100-tf32,mma-in=tf32"), 1.0f + 0x1p-11f + 0x1p-12f),
            1.0f + 0x1p-10f);
  EXPECT_EQ(mma_input(unit("mma=h100-fp8"), 1000.0f), 448.0f);
  EXPECT_EQ(mma_input(unit("mma=mi300-fp8"), -1000.0f), -240.0f);
  EXPECT_EQ(mma_input(unit("mma=h100-fp16"), 1.0f + 0x1p-11f), 1.0f);
}

TEST(MatrixUnit, SpecialValuesFollowIeee) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(dot("mma=h100-fp16", {inf, 1.0f}, {1.0f, 1.0f}, 0), inf);
  // inf - inf and 0 * inf are NaN; NVIDIA writes the NaN with every fraction bit set.
  EXPECT_EQ(bits(dot("mma=h100-fp16", {inf, -inf}, {1.0f, 1.0f}, 0)), 0x7fffffffu);
  EXPECT_TRUE(std::isnan(dot("mma=mi250-fp16", {inf, 0.0f}, {0.0f, 1.0f}, 0)));
}

TEST(MatrixUnit, KnobErrorsNameTheValidValues) {
  auto bad = parse_matrix_unit({{"mma", "tpu-v9"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("h100-fp16"), std::string::npos);
  bad = parse_matrix_unit({{"mma", "h100-fp16"}, {"mma-k", "0"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("1..64"), std::string::npos);
  bad = parse_matrix_unit({{"mma", "mi250-fp16"}, {"mma-k", "8"}});
  ASSERT_FALSE(bad.ok());
  auto n = parse_numerics({{"mma", "h100-fp16"}, {"conv", "winograd4"}});
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("conv=winograd4"), std::string::npos);
  EXPECT_FALSE(parse_numerics({{"mma", "h100-fp16"}, {"dtype", "fp64"}}).ok());
  EXPECT_TRUE(parse_numerics({{"mma", "h100-fp16"}, {"dtype", "bf16"}}).ok());
  EXPECT_GE(mma_presets().size(), 10u);
}

TEST(MatrixUnit, MatMulAndConvRunThroughTheUnit) {
  auto numerics = parse_numerics({{"mma", "a100-fp16"}});
  ASSERT_TRUE(numerics.ok());
  // MatMul [2 x 3] x [3 x 2]: each output is the unit's dot product of a row and a column.
  const std::vector<float> av = {1.0f, 0x1p-12f, 0.3f, -2.0f, 0.1f, 7.0f};
  const std::vector<float> bv = {1.0f, 0.5f, -0x1p-13f, 0.25f, 0.2f, -1.0f};
  auto r = testing::run_node(
      "MatMul", {Tensor::from_vector<float>(av, {2, 3}), Tensor::from_vector<float>(bv, {3, 2})},
      {}, 1, 17, "", *numerics);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const auto y = (*r)[0].tensor.values<float>();
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      const std::vector<float> row = {av[3 * i], av[3 * i + 1], av[3 * i + 2]};
      const std::vector<float> col = {bv[j], bv[2 + j], bv[4 + j]};
      EXPECT_EQ(bits(y[static_cast<size_t>(2 * i + j)]), bits(dot("mma=a100-fp16", row, col, 0)));
    }
  }
  // A 2-channel 2x1 convolution: K ordered (tap, channel), as an implicit GEMM runs it.
  const std::vector<float> x = {1.0f, 0x1p-11f, 3.0f, -1.0f};  // [1, 2, 2, 1]: c0 = {1, 2^-11}
  const std::vector<float> w = {0.5f, 0x1p-14f, -0.5f, 1.0f};  // [1, 2, 2, 1]
  auto c = testing::run_node(
      "Conv",
      {Tensor::from_vector<float>(x, {1, 2, 2, 1}), Tensor::from_vector<float>(w, {1, 2, 2, 1})},
      {}, 1, 17, "", *numerics);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  const float want = dot("mma=a100-fp16", {x[0], x[2], x[1], x[3]}, {w[0], w[2], w[1], w[3]}, 0);
  EXPECT_EQ(bits((*c)[0].tensor.values<float>()[0]), bits(want));
}

// x [1, 8, 6, 6] -> Conv (3x3, pads 1, 4 output channels) -> y, values of many magnitudes.
Model conv_model() {
  Model m;
  m.path = "test:mma_conv";
  m.opsets[""] = 17;
  std::vector<float> w(4 * 8 * 9);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = std::ldexp(static_cast<float>((i * 37) % 101) / 50.0f - 1.0f, static_cast<int>(i % 7));
  m.graph.initializers["w"] = Tensor::from_vector<float>(w, {4, 8, 3, 3});
  Node conv;
  conv.name = "conv";
  conv.op_type = "Conv";
  conv.inputs = {"x", "w"};
  conv.outputs = {"y"};
  conv.attributes["pads"] = testing::attr_ints({1, 1, 1, 1});
  m.graph.nodes = {conv};
  ValueInfo in;
  in.name = "x";
  in.dtype = DType::kFloat32;
  m.graph.inputs = {in};
  ValueInfo out;
  out.name = "y";
  m.graph.outputs = {out};
  return m;
}

Tensor conv_input() {
  std::vector<float> x(8 * 36);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::ldexp(static_cast<float>((i * 53) % 97) / 48.0f - 1.0f, -static_cast<int>(i % 9));
  return Tensor::from_vector<float>(x, {1, 8, 6, 6});
}

Tensor run_conv(const Model& m, const std::map<std::string, std::string>& options) {
  auto n = parse_numerics(options);
  EXPECT_TRUE(n.ok()) << n.status().to_string();
  RefBackend backend(*n);
  auto out = backend.run(m, {{"x", conv_input()}}, nullptr);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return out.ok() ? (*out)[0].tensor : Tensor{};
}

TEST(MatrixUnit, ExplainNamesTheUnitThatComputedAConvolution) {
  const Model m = conv_model();
  for (const auto& [knobs, spec] :
       std::vector<std::pair<std::map<std::string, std::string>, std::string>>{
           {{{"mma", "h100-fp16"}}, "ref:mma=h100-fp16"},
           {{{"mma", "mi300-bf16"}, {"conv", "im2col"}}, "ref:conv=im2col,mma=mi300-bf16"},
           {{{"mma", "amx-bf16"}, {"conv", "relo"}}, "ref:conv=relo,mma=amx-bf16"}}) {
    ExplainProblem p;
    p.model = &m;
    p.node = &m.graph.nodes[0];
    p.target = run_conv(m, knobs);
    p.inputs["x"] = Value::of(conv_input());
    p.inputs["w"] = Value::of(m.graph.initializers.at("w"));
    auto r = explain_node(p, 400);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_TRUE(r->exact) << spec << ": closest " << r->emulator;
    EXPECT_EQ(r->emulator, spec);
    // The unit, and with conv=im2col or relo the order of K too (conv-algorithm).
    EXPECT_EQ(r->causes.back(), "matrix-unit");
    EXPECT_EQ(r->causes.size(), knobs.size());
  }
}

}  // namespace
}  // namespace mma_test
}  // namespace ig

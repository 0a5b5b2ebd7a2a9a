// The emulator's promises (issue [Emulator]): knobs give distinct, accurate, reproducible bits.
#include <gtest/gtest.h>

#include <cfloat>
#include <cstdio>
#include <limits>
#include <set>
#include <thread>

#include "../../support/onnx_builder.h"
#include "analysis/compare/compare.h"
#include "backends/ref/ref_backend.h"
#include "inputs/random_input.h"
#include "platform/registry.h"
#include "synth/conv_model.h"
#include "tensor/hash.h"

namespace ig {
namespace {

// One 3x3 convolution: X [1, 64, 18, 18], W [8, 64, 3, 3] -> Y [1, 8, 16, 16]: 8*256*576 =
// 1,179,648 multiplications; inputs and weights uniform in [0, 1) as in the paper.
Model conv_model() { return single_conv_model("emulator-conv", {8, 64, 3, 3}, 7); }

Tensor run_on(const std::string& spec, const Model& m, const Tensor& x,
              std::string* note = nullptr) {
  auto parsed = parse_platform_spec(spec);
  EXPECT_TRUE(parsed.ok()) << spec;
  auto backend = make_backend(*parsed);
  EXPECT_TRUE(backend.ok()) << spec << ": " << backend.status().to_string();
  NodeCallback cb = [&](const Node&, const std::vector<Value>&, const NodeReport& r) {
    if (note) *note = r.note;
  };
  auto out = (*backend)->run(m, {{"X", x}}, cb);
  EXPECT_TRUE(out.ok()) << spec << ": " << out.status().to_string();
  return out.ok() ? (*out)[0].tensor : Tensor();
}

TEST(Emulator, KnobSweepGivesManyDistinctAccurateReproducibleOutputs) {
  const Model m = conv_model();
  const Tensor x = random_uniform_tensor(DType::kFloat32, {1, 64, 18, 18}, 3);
  const Tensor oracle = run_on("ref:acc=exact,dtype=fp64", m, x);
  ASSERT_EQ(oracle.dtype(), DType::kFloat64);
  const std::vector<std::string> sweep = {"ref",
                                          "ref:acc=pairwise",
                                          "ref:acc=lanes4",
                                          "ref:acc=lanes8",
                                          "ref:acc=lanes16",
                                          "ref:acc=lanes32",
                                          "ref:acc=block16",
                                          "ref:fma=on",
                                          "ref:split=2",
                                          "ref:split=4",
                                          "ref:conv=im2col",
                                          "ref:conv=winograd2",
                                          "ref:conv=winograd4",
                                          "ref:conv=fft",
                                          "ref:math=fast",
                                          "ref:ftz=on",
                                          "ref:acc=lanes16,fma=on",
                                          "ref:acc=block64,conv=im2col"};
  std::set<uint64_t> distinct;
  for (const auto& spec : sweep) {
    const Tensor y = run_on(spec, m, x);
    ASSERT_EQ(y.dtype(), DType::kFloat32) << spec;
    distinct.insert(tensor_hash(y));
    for (int64_t i = 0; i < y.numel(); ++i) {
      const double e = oracle.data<double>()[i];
      ASSERT_LE(std::abs(y.data<float>()[i] - e), 1e-3 * std::abs(e)) << spec << " element " << i;
    }
    EXPECT_TRUE(run_on(spec, m, x).bitwise_equal(y)) << spec << " is not reproducible";
  }
  EXPECT_GE(distinct.size(), 8u);
  std::printf("knob sweep: %zu platforms, %zu distinct fp32 outputs\n", sweep.size(),
              distinct.size());
}

TEST(Emulator, KnobsThatDoNotTouchConvolutionsLeaveItsBitsAlone) {
  // A convolution has no transcendental functions and (with these inputs) no denormals.
  const Model m = conv_model();
  const Tensor x = random_uniform_tensor(DType::kFloat32, {1, 64, 18, 18}, 3);
  const Tensor base = run_on("ref", m, x);
  EXPECT_TRUE(run_on("ref:math=fast", m, x).bitwise_equal(base));
  EXPECT_TRUE(run_on("ref:ftz=on", m, x).bitwise_equal(base));
  EXPECT_TRUE(run_on("ref:nan=ignore", m, x).bitwise_equal(base));
}

TEST(Emulator, TheTraceRecordsTheAlgorithmEachConvolutionUsed) {
  const Model m = conv_model();
  const Tensor x = random_uniform_tensor(DType::kFloat32, {1, 64, 18, 18}, 3);
  std::string note;
  run_on("ref:conv=winograd4", m, x, &note);
  EXPECT_EQ(note, "conv=winograd4");
  Model strided = m;
  strided.graph.nodes[0].attributes["strides"].kind = Attribute::Kind::kInts;
  strided.graph.nodes[0].attributes["strides"].ints = {2, 2};
  run_on("ref:conv=winograd4", strided, x, &note);
  EXPECT_EQ(note, "conv=direct (winograd4 needs stride 1)");
}

TEST(Emulator, LowerPrecisionsRunTheWholeModelInThatType) {
  const Model m = conv_model();
  const Tensor x = random_uniform_tensor(DType::kFloat32, {1, 64, 18, 18}, 3);
  const Tensor oracle = run_on("ref:acc=exact,dtype=fp64", m, x);
  for (const char* spec : {"ref:dtype=fp16", "ref:dtype=bf16", "ref:dtype=fp16,accdtype=fp16"}) {
    const Tensor y = run_on(spec, m, x);
    ASSERT_TRUE(y.dtype() == DType::kFloat16 || y.dtype() == DType::kBFloat16) << spec;
    const Comparison c = compare_tensors(y, y);
    EXPECT_TRUE(c.identical);
    double worst = 0;
    for (int64_t i = 0; i < y.numel(); ++i) {
      const double e = oracle.data<double>()[i];
      worst = std::max(worst, std::abs(y.as_double(i) - e) / std::abs(e));
    }
    // fp16 keeps 11 significant bits, bf16 8; a 576-term sum of positive terms with an fp16
    // accumulator loses more (the 2048 ulp step), so only a loose bound is meaningful here.
    EXPECT_LT(worst, std::string(spec).find("accdtype=fp16") != std::string::npos ? 0.05 : 0.02)
        << spec;
    EXPECT_GT(worst, 1e-6) << spec << " cannot be as accurate as fp32";
  }
}

// X float -> Cast(fp16) -> Add(X16, X16) -> Cast(float) -> Y: the fp16 round trip the campaign's
// precision mutation puts around an op.
Model fp16_add_model() {
  onnx::ModelProto m = testing::empty_model("fp16-add");
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {4});
  testing::add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {4});
  auto cast = [&](const std::string& in, const std::string& out, int to) {
    auto* n = g->add_node();
    n->set_op_type("Cast");
    n->set_name("cast_" + out);
    n->add_input(in);
    n->add_output(out);
    auto* a = n->add_attribute();
    a->set_name("to");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(to);
  };
  cast("X", "X16", onnx::TensorProto::FLOAT16);
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("add");
  add->add_input("X16");
  add->add_input("X16");
  add->add_output("S16");
  cast("S16", "Y", onnx::TensorProto::FLOAT);
  auto model = model_from_proto(m, "fp16-add", "", LoadOptions{});
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  return model.ok() ? std::move(*model) : Model{};
}

// Under fp64 (the oracle's precision) the model's casts to fp16 still round: FLT_MAX and 70000
// overflow fp16 to Inf, 1/3 becomes fp16's nearest value; the Add itself runs in fp64.
TEST(Emulator, Fp64KeepsTheModelsRoundingToFp16) {
  const Model m = fp16_add_model();
  const Tensor x = Tensor::from_vector<float>({FLT_MAX, 70000.0f, 1.0f / 3, -2.5f}, {4});
  for (const char* spec : {"ref:dtype=fp64", "ref:acc=exact,dtype=fp64"}) {
    auto parsed = parse_platform_spec(spec);
    auto backend = make_backend(*parsed);
    ASSERT_TRUE(backend.ok());
    auto out = (*backend)->run(m, {{"X", x}}, nullptr);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    const Tensor& y = (*out)[0].tensor;
    ASSERT_EQ(y.dtype(), DType::kFloat64) << spec;
    EXPECT_EQ(y.data<double>()[0], std::numeric_limits<double>::infinity()) << spec;
    EXPECT_EQ(y.data<double>()[1], std::numeric_limits<double>::infinity()) << spec;
    const double third16 = static_cast<double>(static_cast<float>(Float16(1.0f / 3)));
    EXPECT_NE(third16, 1.0 / 3);
    EXPECT_EQ(y.data<double>()[2], 2 * third16) << spec;
    EXPECT_EQ(y.data<double>()[3], -5.0) << spec;
  }
  // fp32 as written: the same rounding, the Add in fp16.
  auto plain = make_backend(*parse_platform_spec("ref"));
  auto out = (*plain)->run(m, {{"X", x}}, nullptr);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].tensor.data<float>()[0], std::numeric_limits<float>::infinity());
}

TEST(Emulator, ResultsDoNotDependOnHowManyRealThreadsRun) {
  const Model m = conv_model();
  const Tensor x = random_uniform_tensor(DType::kFloat32, {1, 64, 18, 18}, 3);
  const Tensor alone = run_on("ref:acc=lanes8,split=4", m, x);
  std::vector<Tensor> results(4);
  std::vector<std::thread> threads;
  const char* specs[] = {"ref:acc=lanes8,split=4", "ref:acc=pairwise", "ref:acc=lanes8,split=4",
                         "ref:fma=on"};
  for (size_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] { results[t] = run_on(specs[t], m, x); });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(results[0].bitwise_equal(alone));
  EXPECT_TRUE(results[2].bitwise_equal(alone));
  EXPECT_FALSE(results[1].bitwise_equal(alone));
}

TEST(Emulator, BadKnobsAreErrorsListingTheValidOnes) {
  auto bad = make_backend(*parse_platform_spec("ref:conv=gemm"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(
                "conv=gemm is not valid (valid: direct, fft, im2col, relo, winograd2, winograd4)"),
            std::string::npos)
      << bad.status().message();
  auto key = make_backend(*parse_platform_spec("ref:simd=8"));
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.status().message().find(
                "unknown key 'simd' (valid: acc, accdtype, bn, conv, dtype, fma, "
                "ftz, madd, math, mma, mma-acc, mma-accfmt, mma-bits, mma-in, "
                "mma-k, mma-out, mma-pad, mma-sub, nan, qdq, qround, requant, split, "
                "wbits)"),
            std::string::npos)
      << key.status().message();
}

}  // namespace
}  // namespace ig

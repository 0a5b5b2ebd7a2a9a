// relative_loss, which calls a result lost where an absolute tolerance hides that it keeps few or
// none of its significant bits (ONNX Runtime's sigmoid(-18) = 0), and the guard that keeps it from
// inventing a loss: on every operator the edge mutation drives into its tails, infergap's own fp32
// reference keeps relative precision against the fp64 oracle, so neither formula cancels there.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../support/run_node.h"
#include "../support/vectors.h"
#include "analysis/relative_precision.h"
#include "inputs/rng.h"
#include "synth/mutate_util.h"
#include "tensor/convert.h"

namespace ig {
namespace relative_precision_test {
namespace {

using testing::f32;
using testing::f64;

TEST(RelativeLoss, ZeroForANormalResultIsLostWithNoBitRight) {
  const double s18 = 1.0 / (1.0 + std::exp(18.0));  // 1.52e-8
  const RelativeLoss r =
      relative_loss(f32({0.0f, static_cast<float>(s18), 0.5f}), f64({s18, s18, 0.5}), 1e-3);
  EXPECT_EQ(r.judged, 3);
  EXPECT_EQ(r.lost, 1);
  EXPECT_EQ(r.worst, 0);
  EXPECT_EQ(r.bits_kept, 0);
  EXPECT_DOUBLE_EQ(r.worst_relative, 1.0);
  EXPECT_NE(r.describe().find("1 of 3 elements"), std::string::npos) << r.describe();
}

TEST(RelativeLoss, CountsBitsKeptAndSkipsDenormalsAndNonFinite) {
  const double y = 6.1e-6;
  const RelativeLoss r = relative_loss(
      f32({static_cast<float>(y * (1 + 1.0 / 64)), 0.0f, std::numeric_limits<float>::infinity()}),
      f64({y, 1e-40, std::numeric_limits<double>::infinity()}), 1e-3);
  EXPECT_EQ(r.judged, 1);  // the denormal oracle value and the Inf are not judged
  EXPECT_EQ(r.lost, 1);
  EXPECT_EQ(r.bits_kept, 6);
}

TEST(RelativeLoss, AComputationInBf16KeepsEnoughBitsToBeJudgedAbsolutely) {
  // An fp32 output computed in bf16 (8 significant bits): about 2^-9 off, not lost.
  std::vector<double> exact;
  for (int i = 1; i <= 200; ++i) exact.push_back(1e-6 * (1.0 + i / 997.0));
  const Tensor oracle = f64(exact);
  const Tensor in_bf16 =
      convert_float_tensor(convert_float_tensor(oracle, DType::kBFloat16), DType::kFloat32);
  EXPECT_EQ(relative_loss(in_bf16, oracle, 1e-3).lost, 0);
}

TEST(RelativeLoss, CorrectlyRoundedNarrowTypesAreNeverLost) {
  // bf16 keeps 8 significant bits: a correctly rounded result is up to 2^-9 off, above rtol.
  std::vector<double> exact;
  for (int i = 1; i <= 200; ++i) exact.push_back(1.0 + i / 997.0);
  const Tensor oracle = f64(exact);
  for (DType t : {DType::kBFloat16, DType::kFloat16, DType::kFloat32}) {
    const RelativeLoss r = relative_loss(convert_float_tensor(oracle, t), oracle, 1e-3);
    EXPECT_EQ(r.lost, 0) << dtype_name(t);
  }
}

TEST(RelativeLoss, EveryEdgeOperatorIsJudgedAndTheReferenceKeepsItsBits) {
  Numerics oracle;
  oracle.dtype = DType::kFloat64;
  oracle.exact = true;
  for (const auto& [op, ranges] : edge_ranges()) {
    EXPECT_TRUE(relative_precision_op(op)) << op;
    for (const EdgeRange& range : ranges) {
      SCOPED_TRACE(op + " on [" + std::to_string(range.lo) + ", " + std::to_string(range.hi) + "]");
      Rng rng(7);
      std::vector<float> x(4096);
      for (auto& v : x) v = static_cast<float>(range.lo + (range.hi - range.lo) * rng.uniform());
      auto fp32 = testing::run_node(op, {f32(x)}, {}, 1, 18);
      auto fp64 = testing::run_node(op, {f32(x)}, {}, 1, 18, "", oracle);
      ASSERT_TRUE(fp32.ok() && fp64.ok());
      const RelativeLoss r = relative_loss((*fp32)[0].tensor, (*fp64)[0].tensor, 1e-3);
      EXPECT_GT(r.judged, 2000);
      EXPECT_EQ(r.lost, 0) << r.describe();
    }
  }
}

TEST(RelativeLoss, OperatorsWhoseOracleCancelsAreNotJudged) {
  for (const char* op : {"Gelu", "Selu", "HardSigmoid", "Conv", "Add", "Softmax"})
    EXPECT_FALSE(relative_precision_op(op)) << op;
}

}  // namespace
}  // namespace relative_precision_test
}  // namespace ig

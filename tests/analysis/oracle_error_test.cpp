// The error measure against the oracle (analysis/oracle/error.h) and the spans it is measured
// over (analysis/oracle/error_spans.h), on hand-made tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../support/vectors.h"
#include "analysis/oracle/error.h"
#include "analysis/oracle/error_spans.h"
#include "analysis/oracle/origins.h"

namespace ig {
namespace {

using testing::f32;
using testing::f64;

TEST(OracleTensorError, IsTheLargestDifferenceOverTheLargestMagnitude) {
  // Element-wise relative error would be 1 at the zero and 0.5 at 1e-6; the tensor's scale is 4.
  const auto e = oracle_tensor_error(f32({4, 1e-6f, 1e-3f, -2}), f64({4, 2e-6, 0, -2}));
  ASSERT_TRUE(e.comparable);
  EXPECT_DOUBLE_EQ(e.error, std::abs(double(1e-3f)) / 4);
  EXPECT_EQ(oracle_tensor_error(f32({1, 2}), f64({1, 2})).error, 0);
}

TEST(OracleTensorError, AZeroOracleGivesTheAbsoluteError) {
  EXPECT_EQ(oracle_tensor_error(f32({0, 0}), f64({0, 0})).error, 0);
  EXPECT_DOUBLE_EQ(oracle_tensor_error(f32({0, 0.25f}), f64({0, 0})).error, 0.25);
  // -0 against +0 is no error.
  EXPECT_EQ(oracle_tensor_error(f32({-0.0f}), f64({0.0})).error, 0);
}

TEST(OracleTensorError, NonFiniteValuesAgreeOnlyWithTheSame) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(oracle_tensor_error(f32({nan, inf, 1}), f64({NAN, HUGE_VAL, 1})).error, 0);
  EXPECT_TRUE(std::isinf(oracle_tensor_error(f32({nan, 1}), f64({1, 1})).error));
  EXPECT_TRUE(std::isinf(oracle_tensor_error(f32({1, 1}), f64({HUGE_VAL, 1})).error));
  EXPECT_TRUE(std::isinf(oracle_tensor_error(f32({-inf, 1}), f64({HUGE_VAL, 1})).error));
}

TEST(OracleTensorError, OtherShapesAndStringsAreNotComparable) {
  auto e = oracle_tensor_error(f32({1, 2}), f64({1, 2, 3}));
  EXPECT_FALSE(e.comparable);
  EXPECT_NE(e.why_not.find("float[2]"), std::string::npos) << e.why_not;
  EXPECT_DOUBLE_EQ(unit_roundoff(DType::kFloat32), std::ldexp(1.0, -24));
  EXPECT_DOUBLE_EQ(unit_roundoff(DType::kFloat16), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff(DType::kInt64), 0);
}

// conv -> relu -> sig, with the platform's values in a map.
class Spans : public ::testing::Test {
 protected:
  void SetUp() override {
    c_.nodes = {{0, "conv", "Conv", "", {"x", "w"}, {"c"}, {}},
                {1, "relu", "Relu", "", {"c"}, {"r"}, {}},
                {2, "sig", "Sigmoid", "", {"r"}, {"y"}, {}}};
    oracle_values_ = {{"c", f64({1, -1})}, {"r", f64({1, 0})}, {"y", f64({0.75, 0.5})}};
    for (const auto& [v, t] : oracle_values_) oracle_.values[v] = key(t);
  }
  TensorKey key(const Tensor& t) {
    const TensorKey k = TensorKey::of(t);
    tensors_[k] = t;
    return k;
  }
  void platform(const std::string& v, std::vector<float> values) {
    run_.values[v] = key(f32(std::move(values)));
  }
  std::vector<ErrorSpan> spans() {
    TensorCache cache([this](const TensorKey& k) -> Expected<Tensor> { return tensors_.at(k); });
    auto s = error_spans(c_, run_, oracle_, cache);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return *s;
  }
  CaseData c_;
  RepRun run_, oracle_;
  std::map<std::string, Tensor> oracle_values_;
  std::map<TensorKey, Tensor> tensors_;
};

TEST_F(Spans, ATracedNodeIsMeasuredAgainstItsInputs) {
  platform("c", {1, -1});
  platform("r", {1, 0});
  platform("y", {0.75f, 0.25f});  // born here: 0.25 off at a scale of 0.75
  const auto s = spans();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].input_error, 0);  // x and w are graph inputs: equal everywhere
  EXPECT_EQ(s[2].node, "sig");
  EXPECT_EQ(s[2].covers, std::vector<std::string>{"sig"});
  EXPECT_EQ(s[2].inputs, std::vector<std::string>{"r"});
  EXPECT_EQ(s[2].input_error, 0);
  EXPECT_DOUBLE_EQ(s[2].output_error, 0.25 / 0.75);
  EXPECT_TRUE(is_born(s[2]));
  EXPECT_FALSE(is_born(s[1]));
}

TEST_F(Spans, AFusedGroupIsMeasuredFromWhatEntersIt) {
  platform("c", {1.5f, -1});  // conv off, but conv+relu is one group: c is not the group's
  run_.values.erase("c");
  platform("r", {1.5f, 0});
  run_.covers["r"] = "conv,relu";
  platform("y", {0.75f, 0.5f});
  const auto s = spans();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].node, "relu");
  EXPECT_TRUE(s[0].fused);
  EXPECT_EQ(s[0].covers, (std::vector<std::string>{"conv", "relu"}));
  EXPECT_EQ(s[0].cover_indices, (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(s[0].inputs.empty());
  EXPECT_DOUBLE_EQ(s[0].output_error, 0.5);
  EXPECT_EQ(s[1].inputs, std::vector<std::string>{"r"});
}

TEST_F(Spans, AnUntracedValueJoinsItsProducerToTheSpan) {
  platform("y", {0.75f, 0.5f});  // graph outputs only
  const auto s = spans();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_FALSE(s[0].fused);
  EXPECT_EQ(s[0].covers, (std::vector<std::string>{"conv", "relu", "sig"}));
  EXPECT_EQ(s[0].output_error, 0);
}

}  // namespace
}  // namespace ig

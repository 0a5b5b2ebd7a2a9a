// within_tolerance, which the campaign and reduce's tolerance criterion judge by: an Inf against
// a finite value or against the Inf of the other sign is a difference, though their distance is
// within any relative tolerance of an Inf (reduce missed XNNPACK's Mul giving -Inf for +Inf).
#include <gtest/gtest.h>

#include <limits>

#include "analysis/campaign/data.h"

namespace ig {
namespace {

constexpr float kTolInf = std::numeric_limits<float>::infinity();

bool within_1e3(std::vector<float> a, std::vector<float> b) {
  const int64_t n = static_cast<int64_t>(a.size());
  return campaign::within_tolerance(Tensor::from_vector<float>(a, {n}),
                                    Tensor::from_vector<float>(b, {n}), 1e-3, 1e-5);
}

TEST(WithinTolerance, InfAgainstFiniteOrTheOtherInfDiffers) {
  EXPECT_TRUE(within_1e3({1.0f, kTolInf}, {1.0005f, kTolInf}));
  EXPECT_FALSE(within_1e3({1.0f, -kTolInf}, {1.0f, kTolInf}));
  EXPECT_FALSE(within_1e3({1.0f, 3e38f}, {1.0f, kTolInf}));
  EXPECT_FALSE(within_1e3({1.0f, kTolInf}, {1.0f, 3e38f}));
  EXPECT_FALSE(within_1e3({1.0f, 2.0f}, {1.0f, 2.1f}));
}

}  // namespace
}  // namespace ig

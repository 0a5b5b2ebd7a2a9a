#include "analysis/reduce/boundary.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../support/cli.h"

namespace ig {
namespace {

Tensor filled(float v) {
  Tensor t = *Tensor::create(DType::kFloat32, {4});
  for (int i = 0; i < 4; ++i) t.data<float>()[i] = v;
  return t;
}

// Two "platforms" whose decision boundary on sum(x) sits at 2.0 and 2.0 + 1e-5.
LogitsFn threshold_at(double at) {
  return [at](const Tensor& x) -> Expected<std::vector<double>> {
    double s = 0;
    for (int i = 0; i < 4; ++i) s += x.data<float>()[i];
    return std::vector<double>{at, s};
  };
}

TEST(Boundary, Top1TakesTheFirstMaximumAndItsLead) {
  const Labelled l = top1({0.5, 2.0, 1.5, 2.0});
  EXPECT_EQ(l.label, 1);
  EXPECT_DOUBLE_EQ(l.gap, 0.0);
  EXPECT_DOUBLE_EQ(top1({3.0, 1.0}).gap, 2.0);
}

TEST(Boundary, BisectionFindsAnInputBetweenTwoDecisionBoundaries) {
  auto r =
      find_boundary({filled(0.0f), filled(1.0f)}, threshold_at(2.0), threshold_at(2.0 + 1e-5), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->found) << r->note;
  EXPECT_EQ(r->natural_flips, 0);
  EXPECT_NE(r->on_a.label, r->on_b.label);
  double s = 0;
  for (int i = 0; i < 4; ++i) s += r->input.data<float>()[i];
  EXPECT_GE(s, 2.0 - 1e-6);
  EXPECT_LE(s, 2.0 + 1e-5 + 1e-6);
}

TEST(Boundary, IdenticalPlatformsNeverFlipAndTheSearchEnds) {
  auto r = find_boundary({filled(0.0f), filled(1.0f)}, threshold_at(2.0), threshold_at(2.0), {});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found);
  EXPECT_EQ(r->pairs_tried, 1);
  EXPECT_LT(r->evaluations, 2 * 70);  // stops when no float is left, not after max_steps
}

TEST(Boundary, RejectsStartsOfDifferentShapes) {
  Tensor other = *Tensor::create(DType::kFloat32, {3});
  auto r = find_boundary({filled(0.0f), other}, threshold_at(2.0), threshold_at(2.0), {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("one shape"), std::string::npos);
}

// End to end on a real model: the input the search reports gets different labels when `run`
// evaluates it again on the two platforms.
TEST(BoundaryCli, FoundInputFlipsTheLabelWhenRunAgain) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("infergap-boundary-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string model = (dir / "m.onnx").string();
  ASSERT_EQ(testing::run_cli("zoo export Cifar10-small -o " + model).exit_code, 0);
  auto r = testing::run_cli("boundary " + model + " -p ref -p ref:conv=im2col -o " + dir.string() +
                            " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.at("found").get<bool>());
  EXPECT_NE(j["on"]["ref"]["label"], j["on"]["ref:conv=im2col"]["label"]);
  const std::string input = j.at("input_file").get<std::string>();
  auto rerun = testing::run_cli("run " + model + " --input x=" + input +
                                " -p ref -p ref:conv=im2col --json");
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  const auto rj = nlohmann::json::parse(rerun.out);
  EXPECT_NE(rj["platforms"][0]["outputs"][0]["hash"], rj["platforms"][1]["outputs"][0]["hash"]);
  // An identical pair of platforms is a clean "not found" (exit 1), never an error.
  auto same = testing::run_cli("boundary " + model + " -p ref -p ref --starts 3 --json");
  EXPECT_EQ(same.exit_code, 1) << same.err;
  EXPECT_FALSE(nlohmann::json::parse(same.out).at("found").get<bool>());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ig

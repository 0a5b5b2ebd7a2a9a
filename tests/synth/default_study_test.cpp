#include "synth/default_study.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "../support/onnx_builder.h"
#include "inputs/inputs.h"
#include "model/onnx_model.h"

namespace ig {
namespace {

TEST(DefaultStudy, TwoPaperModelsOnThreeGeneratedImages) {
  testing::TempDir dir;
  const std::string images = dir.file("images");
  auto plan = default_study_plan(images);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_EQ(plan->models.size(), 2u);
  EXPECT_EQ(plan->models[0].zoo_name, "Cifar10-R18");
  EXPECT_EQ(plan->models[1].zoo_name, "Cifar10-small");
  // The small model is enough to check that every planned input materialises for it.
  auto proto = build_zoo_model(plan->models[1].zoo_name, plan->models[1].options);
  ASSERT_TRUE(proto.ok());
  auto model = model_from_proto(*proto, "Cifar10-small", "", LoadOptions{});
  ASSERT_TRUE(model.ok());
  std::set<std::string> hashes;
  for (const auto& set : plan->models[1].input_sets) {
    auto inputs = gather_inputs(*model, set, 0);
    ASSERT_TRUE(inputs.ok()) << inputs.status().to_string();
    EXPECT_EQ((*inputs)[0].tensor.shape(), (Shape{1, 3, 32, 32}));
    hashes.insert(input_set_hash(*inputs));
  }
  EXPECT_EQ(hashes.size(), 3u);
}

}  // namespace
}  // namespace ig

// The ONNX checker and shape inference run in one long-lived helper process: models do not fork
// a process each, and a model that crashes libonnx ends only the helper, which starts again.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

#include "../support/onnx_builder.h"
#include "core/venv.h"
#include "model/onnx_model.h"
#include "model/shape_inference.h"

namespace ig {
namespace {

TEST(OnnxHelper, OneProcessServesManyModelsAndRestartsAfterACrash) {
  testing::TempDir dir;
  const std::string good = dir.file("relu.onnx");
  ASSERT_TRUE(save_model_proto(testing::relu_model(), good).ok());
  ASSERT_TRUE(load_model(good).ok());
  const int first = onnx_helper_pid();
  ASSERT_GT(first, 0);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(load_model(good).ok());
  EXPECT_EQ(onnx_helper_pid(), first);  // no process per model

  auto crashed = load_model(std::string(INFERGAP_SOURCE_DIR) +
                            "/fuzz/regressions/fuzz_onnx_model/gemm_scalar_input.onnx");
  ASSERT_FALSE(crashed.ok());
  EXPECT_NE(crashed.status().message().find("ONNX shape inference crashed on this model"),
            std::string::npos)
      << crashed.status().message();
  EXPECT_EQ(onnx_helper_pid(), -1);  // reaped

  auto again = load_model(good);
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_GT(onnx_helper_pid(), 0);
  EXPECT_NE(onnx_helper_pid(), first);
  // Inference still declares shapes through the helper.
  EXPECT_TRUE(again->graph.outputs[0].has_shape);
}

TEST(OnnxHelper, CheckerComplaintIsAnErrorNamingTheModel) {
  testing::TempDir dir;
  onnx::ModelProto m = testing::relu_model();
  m.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  const std::string path = dir.file("dangling.onnx");
  ASSERT_TRUE(save_model_proto(m, path).ok());
  auto loaded = load_model(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("dangling.onnx: ONNX checker:"), std::string::npos)
      << loaded.status().message();
}

// A model newer than the linked libonnx knows (IR 10 here) is judged by the onnx package of the
// venv; without it the error says how to get it, and nothing is checked by the older rules.
TEST(OnnxHelper, ANewerModelGoesToTheOnnxPackageOrSaysHowToGetIt) {
  testing::TempDir dir;
  onnx::ModelProto m = testing::relu_model();
  m.set_ir_version(10);
  const std::string path = dir.file("ir10.onnx");
  ASSERT_TRUE(save_model_proto(m, path).ok());
  const char* before = std::getenv("INFERGAP_PYTHON");
  const std::string saved = before ? before : "";
  ::setenv("INFERGAP_PYTHON", dir.file("no-python").c_str(), 1);
  auto missing = load_model(path);
  if (saved.empty()) {
    ::unsetenv("INFERGAP_PYTHON");
  } else {
    ::setenv("INFERGAP_PYTHON", saved.c_str(), 1);
  }
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(missing.status().message().find("ir10.onnx: the model is newer than the linked "
                                            "libonnx knows (IR 8"),
            std::string::npos)
      << missing.status().message();
  EXPECT_NE(missing.status().message().find("run scripts/setup"), std::string::npos);

  if (::access(venv_python().c_str(), X_OK) != 0) GTEST_SKIP() << "no .venv (scripts/setup)";
  auto loaded = load_model(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->ir_version, 10);
  EXPECT_TRUE(loaded->graph.outputs[0].has_shape);  // the onnx package's inference
  // Its checker's complaints name the model as libonnx's do.
  m.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  ASSERT_TRUE(save_model_proto(m, path).ok());
  auto bad = load_model(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("ir10.onnx: ONNX checker:"), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("nowhere"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace ig

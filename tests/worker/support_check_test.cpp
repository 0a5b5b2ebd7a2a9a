// Support-only jobs: a worker says what its platform cannot run of a model without running it.
#include "worker/support_check.h"

#include <gtest/gtest.h>

#include "../support/onnx_builder.h"
#include "worker/probe.h"

namespace ig {
namespace {

using testing::TempDir;

class SupportCheck : public ::testing::Test {
 protected:
  TempDir dir;
  WorkerPool pool{WorkerPoolOptions{.worker_executable = INFERGAP_WORKER}};
};

TEST_F(SupportCheck, RunsNothingAndNamesEveryRefusedNode) {
  const std::string cnn = dir.file("cnn.onnx");
  ASSERT_TRUE(write_probe_model(cnn).ok());
  RunRequest request;
  request.platform = "ref";
  request.model_path = cnn;  // no inputs: a job that ran would fail on the missing feed
  request.support_only = true;
  const RunResult ok = pool.run(request);
  EXPECT_EQ(ok.verdict, Verdict::kOk) << ok.reason;
  EXPECT_TRUE(ok.outputs.empty());
  EXPECT_TRUE(ok.trace.empty());

  const std::string custom = dir.file("custom.onnx");
  ASSERT_TRUE(save_model_proto(testing::custom_op_model(), custom).ok());
  const auto support = check_support(pool, custom, {"ref", "ort"}, 60);
  ASSERT_EQ(support.size(), 2u);
  EXPECT_TRUE(support[0].available);
  EXPECT_EQ(support[0].verdict, Verdict::kUnsupported);
  ASSERT_EQ(support[0].rejections.size(), 1u);
  EXPECT_EQ(support[0].rejections[0].op_type, "Frobnicate");
  EXPECT_EQ(support[0].rejections[0].node_index, 0);
  // ORT decides when it creates its session: a refusal of the whole model.
  EXPECT_EQ(support[1].verdict, Verdict::kUnsupported) << support[1].reason;
  ASSERT_EQ(support[1].rejections.size(), 1u);
  EXPECT_EQ(support[1].rejections[0].node, "");
  EXPECT_NE(support[1].reason.find("Frobnicate"), std::string::npos) << support[1].reason;
}

TEST_F(SupportCheck, OneFamilyPerBackendUsersCanNameAndUnavailableOnesSaySo) {
  auto catalog = read_catalog(INFERGAP_WORKER);
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  const auto specs = family_specs(*catalog);
  EXPECT_NE(std::find(specs.begin(), specs.end(), "ref"), specs.end());
  EXPECT_NE(std::find(specs.begin(), specs.end(), "ort"), specs.end());
  EXPECT_EQ(std::find(specs.begin(), specs.end(), "crashtest"), specs.end());  // test-only
  const std::string cnn = dir.file("cnn.onnx");
  ASSERT_TRUE(write_probe_model(cnn).ok());
  // A platform whose worker cannot start is reported, not fatal.
  const auto support = check_support(pool, cnn, {"crashtest:load=ILL", "ref"}, 60);
  ASSERT_EQ(support.size(), 2u);
  EXPECT_FALSE(support[0].available);
  EXPECT_NE(support[0].reason.find("SIGILL"), std::string::npos) << support[0].reason;
  EXPECT_TRUE(support[1].available);
  EXPECT_EQ(support[1].verdict, Verdict::kOk);
}

}  // namespace
}  // namespace ig

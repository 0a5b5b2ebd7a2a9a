// SIGKILL of `infergap campaign` at seeded points (start-up, runs, the per-layer reruns): the
// rerun completes, every variant x platform run is stored exactly once with its outputs, and
// SQLite's integrity check passes after every kill.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/interrupt.h"
#include "../support/mini_resnet.h"
#include "../support/onnx_builder.h"

namespace ig {
namespace {

using testing::sqlite_int;

TEST(Interrupt, CampaignKilledAtFiveSeededPointsResumesWithEveryRunOnce) {
  testing::TempDir dir;
  const std::string parent =
      testing::write_model(testing::mini_resnet(8, 8), dir.file("parent.onnx"));
  const std::string variants = dir.file("variants");
  auto m = testing::run_cli("mutate " + parent + " --count 10 --seed 5 -o " + variants + " --json");
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const int64_t n = nlohmann::json::parse(m.out).at("written").get<int64_t>();
  ASSERT_EQ(n, 10);
  const std::string db = dir.file("campaign.db");
  const std::vector<std::string> args{
      "campaign", "--models",       variants, "-p", "ref",         "-p",      "ref:fma=on",
      "-p",       "ref:acc=lanes8", "--jobs", "2",  "--no-report", "--store", db};
  const int64_t total = n * 4;  // three platforms and the fp64 oracle
  EXPECT_GE(testing::kill_checking_integrity(args, db, 7, 5, total), 4);

  const std::string rerun = testing::command_line(args) + " --json";
  const auto r = testing::run_cli(rerun);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs_executed"].get<int64_t>() + j["runs_skipped"].get<int64_t>(), total);
  testing::expect_every_run_stored_once(db, total);
  // Every ok run has its graph outputs.
  EXPECT_EQ(sqlite_int(db,
                       "SELECT COUNT(*) FROM runs WHERE verdict = 'ok' AND id NOT IN "
                       "(SELECT run FROM node_outputs WHERE is_output = 1)"),
            0);
  const auto again = testing::run_cli(rerun);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["runs_executed"], 0);
}

}  // namespace
}  // namespace ig

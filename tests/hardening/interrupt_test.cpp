// SIGKILL of the coordinator at seeded points of a study (start-up, between runs, in the middle
// of writes): the rerun completes, every run is stored exactly once and completely, and SQLite's
// integrity check passes. The harness (support/interrupt.h) takes any argv, for `campaign` too.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/interrupt.h"
#include "../support/mini_resnet.h"
#include "../support/onnx_builder.h"

namespace ig {
namespace {

using testing::sqlite_int;

TEST(Interrupt, StudyKilledAtFiveSeededPointsResumesWithEveryRunOnce) {
  testing::TempDir dir;
  const std::string model = testing::write_model(testing::mini_resnet(8, 8), dir.file("m.onnx"));
  const std::string db = dir.file("study.db");
  const std::vector<std::string> args{"study",      "--model",  model, "--inputs",       "6",
                                      "-p",         "ref",      "-p",  "ref:acc=lanes8", "-p",
                                      "ref:fma=on", "--repeat", "2",   "--store",        db};
  const int64_t total = 6 * 3 * 2 + 6;  // + the fp64 oracle once per input
  // A kill is only a test if it interrupted something; the points lie before the end, and some
  // kills must leave runs to do (runs are committed in batches: a late point may only be reached
  // with the last batch).
  int left_work = 0;
  EXPECT_GE(testing::kill_checking_integrity(args, db, 20261121, 5, total, &left_work), 4);
  EXPECT_GE(left_work, 2);

  const std::string rerun = testing::command_line(args) + " --json";
  const auto r = testing::run_cli(rerun);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs_executed"].get<int64_t>() + j["runs_skipped"].get<int64_t>(), total);
  testing::expect_every_run_stored_once(db, total);
  EXPECT_EQ(sqlite_int(db, "SELECT COUNT(*) FROM runs WHERE verdict != 'ok'"), 0);
  // Complete runs: every run has its traced tensors, and every run the same number of them.
  EXPECT_EQ(sqlite_int(db,
                       "SELECT COUNT(*) FROM runs WHERE id NOT IN "
                       "(SELECT run FROM node_outputs)"),
            0);
  EXPECT_EQ(sqlite_int(db,
                       "SELECT COUNT(DISTINCT n) FROM (SELECT COUNT(*) n FROM node_outputs "
                       "GROUP BY run)"),
            1);
  // A second rerun has nothing left to do.
  const auto again = testing::run_cli(rerun);
  EXPECT_EQ(nlohmann::json::parse(again.out)["runs_executed"], 0);
}

}  // namespace
}  // namespace ig

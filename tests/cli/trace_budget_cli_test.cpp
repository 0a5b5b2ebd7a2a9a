// --trace-budget: a study whose traces are far larger than the budget spills them and stores
// exactly what the same study stores at the default budget; --json reports the peak memory.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../support/cli.h"
#include "../support/mini_resnet.h"

namespace ig {
namespace {

using testing::cli_json;
using testing::run_cli;
using testing::TempDir;

std::vector<std::string> column(sqlite3* db, const std::string& sql) {
  std::vector<std::string> out;
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    const auto* text = sqlite3_column_text(st, 0);
    out.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
  }
  sqlite3_finalize(st);
  return out;
}

int64_t scalar(sqlite3* db, const std::string& sql) {
  const auto v = column(db, sql);
  return v.empty() ? -1 : std::stoll(v[0]);
}

// Every table of `a` holds the same rows as in `b` (runs.seconds aside), blobs byte for byte.
void expect_same_contents(const std::string& a, const std::string& b) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(a.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, ("ATTACH '" + b + "' AS b").c_str(), nullptr, nullptr, nullptr),
            SQLITE_OK);
  const auto tables = column(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
  EXPECT_EQ(tables, column(db, "SELECT name FROM b.sqlite_master WHERE type = 'table'"));
  for (const auto& t : tables) {
    std::string cols;
    for (const auto& c : column(db, "SELECT name FROM pragma_table_info('" + t + "')"))
      if (!(t == "runs" && c == "seconds")) cols += (cols.empty() ? "" : ", ") + c;
    const std::string in_a = "SELECT " + cols + " FROM main." + t;
    const std::string in_b = "SELECT " + cols + " FROM b." + t;
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM main." + t),
              scalar(db, "SELECT count(*) FROM b." + t))
        << t;
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM (" + in_a + " EXCEPT " + in_b + ")"), 0) << t;
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM (" + in_b + " EXCEPT " + in_a + ")"), 0) << t;
  }
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM runs WHERE verdict = 'ok'"), 3);
  EXPECT_GT(scalar(db, "SELECT count(*) FROM tensors WHERE data IS NOT NULL"), 10);
  EXPECT_GT(scalar(db, "SELECT count(*) FROM tensor_facts"), 0);
  sqlite3_close(db);
}

TEST(TraceBudgetCli, ATinyBudgetSpillsAndStoresWhatTheDefaultStores) {
  TempDir dir;
  // Convolutions of 16 x 48 x 48: 147 KB per fp32 tensor, 295 KB in the fp64 oracle.
  const std::string model =
      testing::write_model(testing::mini_resnet(16, 48), dir.file("mini_resnet.onnx"));
  auto study = [&](const std::string& db, const std::string& extra) {
    // Every tensor kept: what is compared is each spilled tensor's bytes as stored.
    return cli_json("study --model " + model + " -p 'ref:acc=lanes8,fma=on' -p 'ref:split=3'" +
                    " --layers all --keep-tensors classes --no-report --json --store " + db +
                    extra);
  };
  const std::string by_default = dir.file("default.db"), tiny = dir.file("tiny.db");
  const auto d = study(by_default, "");
  const auto t = study(tiny, " --trace-budget 64K");
  ASSERT_TRUE(d.is_object() && t.is_object());
  EXPECT_EQ(d["runs_executed"], 3);
  EXPECT_EQ(t["runs_executed"], 3);
  EXPECT_EQ(d["trace_memory"]["spilled"], 0);
  EXPECT_GT(t["trace_memory"]["spilled"].get<uint64_t>(), uint64_t{1} << 20);
  EXPECT_LE(t["trace_memory"]["peak_held"].get<uint64_t>(), 64u * 1024);
  for (const auto* j : {&d, &t}) {
    EXPECT_GT((*j)["peak_rss"]["coordinator"].get<uint64_t>(), 0u);
    ASSERT_EQ((*j)["peak_rss"]["workers"].size(), 3u);  // two platforms and the oracle
    for (const auto& [platform, bytes] : (*j)["peak_rss"]["workers"].items())
      EXPECT_GT(bytes.get<uint64_t>(), 0u) << platform;
  }
  std::printf(
      "peak coordinator RSS: %.1f MB at the default budget, %.1f MB at 64K (%.1f MB "
      "spilled)\n",
      d["peak_rss"]["coordinator"].get<double>() / 1048576.0,
      t["peak_rss"]["coordinator"].get<double>() / 1048576.0,
      t["trace_memory"]["spilled"].get<double>() / 1048576.0);
  expect_same_contents(tiny, by_default);
  // Resumed at the tiny budget: nothing to run again, nothing changes.
  EXPECT_EQ(study(tiny, " --trace-budget 64K")["runs_skipped"], 3);
  expect_same_contents(tiny, by_default);
}

TEST(TraceBudgetCli, ABadBudgetIsRefused) {
  const auto r = run_cli("study --trace-budget lots --store /nonexistent/x.db");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("trace-budget"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ig

// Stores carry a schema version: a store of another version is refused on open and by merge, with
// both versions named, and nothing is written to it. Rejections are stored and merged as records.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "../support/onnx_builder.h"
#include "store/store.h"

namespace ig {
namespace {

using testing::TempDir;

void sql(const std::string& db, const std::string& statement) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, statement.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << statement;
  sqlite3_close(h);
}

RunResult unsupported_run() {
  RunResult r;
  r.verdict = Verdict::kUnsupported;
  r.reason = "Softsign 's': no oneDNN mapping";
  r.rejections = {{"s", "Softsign", 1, "Softsign 's': no oneDNN mapping"},
                  {"t", "Erf", 2, "Erf 't': no oneDNN mapping"}};
  return r;
}

TEST(StoreSchema, NewStoreRecordsItsVersion) {
  TempDir dir;
  auto store = Store::open(dir.file("s.db"));
  ASSERT_TRUE(store.ok()) << store.status().message();
  EXPECT_EQ((*store)->meta("schema_version"), std::to_string(kStoreSchemaVersion));
  store->reset();
  EXPECT_TRUE(Store::open(dir.file("s.db")).ok());  // reopening its own version is fine
}

TEST(StoreSchema, OtherVersionIsRefusedOnOpenNamingBothVersions) {
  TempDir dir;
  const std::string db = dir.file("old.db");
  ASSERT_TRUE(Store::open(db).ok());
  sql(db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  auto newer = Store::open(db);
  ASSERT_FALSE(newer.ok());
  const std::string& msg = newer.status().message();
  EXPECT_NE(msg.find(db), std::string::npos) << msg;
  EXPECT_NE(msg.find("schema version 99"), std::string::npos) << msg;
  EXPECT_NE(msg.find("reads " + supported_schema_versions()), std::string::npos) << msg;
  // A wave-1 store had no version and no rejections table: refused, and left as it was.
  sql(db, "DELETE FROM meta WHERE key = 'schema_version'; DROP TABLE rejections");
  auto old = Store::open(db);
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("schema version 1"), std::string::npos)
      << old.status().message();
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_master WHERE name = 'rejections'",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
}

TEST(StoreSchema, MergeRefusesAnotherVersionAndWritesNothing) {
  TempDir dir;
  auto main = Store::open(dir.file("main.db"));
  ASSERT_TRUE(main.ok());
  const std::string other = dir.file("other.db");
  {
    auto o = Store::open(other);
    ASSERT_TRUE(o.ok());
    ASSERT_TRUE((*o)->put_run({"m", "i", "onednn", "h", 0}, unsupported_run()).ok());
  }
  const std::string next = std::to_string(kStoreSchemaVersion + 1);
  sql(other, "UPDATE meta SET value = '" + next + "' WHERE key = 'schema_version'");
  const Status st = (*main)->merge_from(other);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("schema version " + next), std::string::npos) << st.message();
  EXPECT_EQ(*(*main)->count("runs"), 0);
  EXPECT_EQ(*(*main)->count("meta"), 1);  // only its own schema_version
}

TEST(StoreSchema, RejectionsAreStoredReadBackAndMerged) {
  TempDir dir;
  {
    auto a = Store::open(dir.file("a.db"));
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*a)->put_run({"m", "i", "onednn", "h", 0}, unsupported_run()).ok());
  }
  auto b = Store::open(dir.file("b.db"));
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE((*b)->merge_from(dir.file("a.db")).ok());
  for (const std::string name : {"a.db", "b.db"}) {
    auto s = Store::open(dir.file(name));
    ASSERT_TRUE(s.ok());
    auto runs = (*s)->runs();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ(runs->front().verdict, Verdict::kUnsupported);
    auto rej = (*s)->rejections(runs->front().id);
    ASSERT_TRUE(rej.ok());
    EXPECT_EQ(*rej, unsupported_run().rejections) << name;
    auto all = (*s)->all_rejections();
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->at(runs->front().id), unsupported_run().rejections);
  }
}

TEST(StoreSchema, UnknownVerdictInAStoreIsAnErrorNotAGuess) {
  TempDir dir;
  const std::string db = dir.file("s.db");
  {
    auto s = Store::open(db);
    ASSERT_TRUE(s.ok());
    RunResult r;
    r.verdict = Verdict::kOk;
    ASSERT_TRUE((*s)->put_run({"m", "i", "ref", "h", 0}, r).ok());
  }
  sql(db, "UPDATE runs SET verdict = 'fine'");
  auto s = Store::open(db);
  ASSERT_TRUE(s.ok());
  auto runs = (*s)->runs();
  ASSERT_FALSE(runs.ok());
  EXPECT_NE(runs.status().message().find("unknown verdict 'fine'"), std::string::npos);
}

}  // namespace
}  // namespace ig

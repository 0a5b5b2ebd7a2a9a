// The DDL of both dialects is generated from one table list (store/schema.h). SQLite keeps a
// CREATE statement's text verbatim, so a store made now must hold the very text that the
// hand-written DDL gave earlier stores: the old texts are kept here, byte for byte.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <utility>
#include <vector>

#include "../support/onnx_builder.h"
#include "store/pg_tables.h"
#include "store/schema.h"
#include "store/store.h"

namespace ig {
namespace {

using testing::TempDir;

// store.cpp's kSchema before the DDL was generated.
constexpr const char* kOldSqliteSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hosts(id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS platforms(spec TEXT NOT NULL, host TEXT NOT NULL,
  oracle INTEGER NOT NULL, PRIMARY KEY(spec, host, oracle));
CREATE TABLE IF NOT EXISTS models(hash TEXT PRIMARY KEY, path TEXT NOT NULL, name TEXT NOT NULL,
  lineage TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS graph_nodes(model TEXT NOT NULL, idx INTEGER NOT NULL,
  name TEXT NOT NULL, op_type TEXT NOT NULL, domain TEXT NOT NULL, inputs TEXT NOT NULL,
  outputs TEXT NOT NULL, attributes TEXT NOT NULL, PRIMARY KEY(model, idx));
CREATE TABLE IF NOT EXISTS inputs(hash TEXT PRIMARY KEY, label TEXT NOT NULL,
  recipe TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, model TEXT NOT NULL,
  input TEXT NOT NULL, platform TEXT NOT NULL, host TEXT NOT NULL, repetition INTEGER NOT NULL,
  verdict TEXT NOT NULL, reason TEXT NOT NULL, repro TEXT NOT NULL, seconds REAL NOT NULL,
  UNIQUE(model, input, platform, host, repetition));
CREATE TABLE IF NOT EXISTS node_outputs(run INTEGER NOT NULL REFERENCES runs(id),
  node_index INTEGER NOT NULL, value TEXT NOT NULL, node TEXT NOT NULL, op_type TEXT NOT NULL,
  hash TEXT NOT NULL, dtype TEXT NOT NULL, shape TEXT NOT NULL, is_output INTEGER NOT NULL,
  min REAL, max REAL, mean REAL, nan_count INTEGER, inf_count INTEGER,
  PRIMARY KEY(run, value));
CREATE TABLE IF NOT EXISTS tensors(hash TEXT NOT NULL, dtype TEXT NOT NULL, shape TEXT NOT NULL,
  nbytes INTEGER NOT NULL, data BLOB, PRIMARY KEY(hash, dtype, shape));
CREATE TABLE IF NOT EXISTS node_notes(run INTEGER NOT NULL REFERENCES runs(id),
  value TEXT NOT NULL, note TEXT NOT NULL, covers TEXT NOT NULL, PRIMARY KEY(run, value));
CREATE TABLE IF NOT EXISTS rejections(run INTEGER NOT NULL REFERENCES runs(id),
  position INTEGER NOT NULL, node TEXT NOT NULL, op_type TEXT NOT NULL, node_index INTEGER NOT NULL,
  reason TEXT NOT NULL, PRIMARY KEY(run, position));
CREATE TABLE IF NOT EXISTS self_checks(run INTEGER NOT NULL REFERENCES runs(id),
  value TEXT NOT NULL, kind TEXT NOT NULL, spec TEXT NOT NULL, nodes TEXT NOT NULL,
  verdict TEXT NOT NULL, reason TEXT NOT NULL, hash TEXT NOT NULL, dtype TEXT NOT NULL,
  shape TEXT NOT NULL, PRIMARY KEY(run, value, kind));
CREATE TABLE IF NOT EXISTS tensor_facts(kind TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,
  value REAL NOT NULL, PRIMARY KEY(kind, a, b)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS platform_libraries(spec TEXT NOT NULL, host TEXT NOT NULL,
  library TEXT NOT NULL, version TEXT NOT NULL, PRIMARY KEY(spec, host)) WITHOUT ROWID;
)sql";

// pg_tables.cpp's pg_schema_sql() before the DDL was generated.
constexpr const char* kOldPostgresSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hosts(id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS platforms(spec TEXT NOT NULL, host TEXT NOT NULL,
  oracle BIGINT NOT NULL, PRIMARY KEY(spec, host, oracle));
CREATE TABLE IF NOT EXISTS models(hash TEXT PRIMARY KEY, path TEXT NOT NULL, name TEXT NOT NULL,
  lineage TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS graph_nodes(model TEXT NOT NULL, idx BIGINT NOT NULL,
  name TEXT NOT NULL, op_type TEXT NOT NULL, domain TEXT NOT NULL, inputs TEXT NOT NULL,
  outputs TEXT NOT NULL, attributes TEXT NOT NULL, PRIMARY KEY(model, idx));
CREATE TABLE IF NOT EXISTS inputs(hash TEXT PRIMARY KEY, label TEXT NOT NULL,
  recipe TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(id BIGSERIAL PRIMARY KEY, model TEXT NOT NULL,
  input TEXT NOT NULL, platform TEXT NOT NULL, host TEXT NOT NULL, repetition BIGINT NOT NULL,
  verdict TEXT NOT NULL, reason TEXT NOT NULL, repro TEXT NOT NULL,
  seconds DOUBLE PRECISION NOT NULL, UNIQUE(model, input, platform, host, repetition));
CREATE TABLE IF NOT EXISTS node_outputs(run BIGINT NOT NULL REFERENCES runs(id),
  node_index BIGINT NOT NULL, value TEXT NOT NULL, node TEXT NOT NULL, op_type TEXT NOT NULL,
  hash TEXT NOT NULL, dtype TEXT NOT NULL, shape TEXT NOT NULL, is_output BIGINT NOT NULL,
  min DOUBLE PRECISION, max DOUBLE PRECISION, mean DOUBLE PRECISION, nan_count BIGINT,
  inf_count BIGINT, PRIMARY KEY(run, value));
CREATE TABLE IF NOT EXISTS tensors(hash TEXT NOT NULL, dtype TEXT NOT NULL, shape TEXT NOT NULL,
  nbytes BIGINT NOT NULL, data BYTEA, PRIMARY KEY(hash, dtype, shape));
CREATE TABLE IF NOT EXISTS node_notes(run BIGINT NOT NULL REFERENCES runs(id),
  value TEXT NOT NULL, note TEXT NOT NULL, covers TEXT NOT NULL, PRIMARY KEY(run, value));
CREATE TABLE IF NOT EXISTS rejections(run BIGINT NOT NULL REFERENCES runs(id),
  position BIGINT NOT NULL, node TEXT NOT NULL, op_type TEXT NOT NULL,
  node_index BIGINT NOT NULL, reason TEXT NOT NULL, PRIMARY KEY(run, position));
CREATE TABLE IF NOT EXISTS self_checks(run BIGINT NOT NULL REFERENCES runs(id),
  value TEXT NOT NULL, kind TEXT NOT NULL, spec TEXT NOT NULL, nodes TEXT NOT NULL,
  verdict TEXT NOT NULL, reason TEXT NOT NULL, hash TEXT NOT NULL, dtype TEXT NOT NULL,
  shape TEXT NOT NULL, PRIMARY KEY(run, value, kind));
CREATE TABLE IF NOT EXISTS fleet_plans(id BIGSERIAL PRIMARY KEY, command TEXT NOT NULL,
  args TEXT NOT NULL, cwd TEXT NOT NULL, shards BIGINT NOT NULL,
  every_host BOOLEAN NOT NULL DEFAULT false, created TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS fleet_jobs(id BIGSERIAL PRIMARY KEY,
  plan BIGINT NOT NULL REFERENCES fleet_plans(id), shard BIGINT NOT NULL,
  scope TEXT NOT NULL DEFAULT '', state TEXT NOT NULL DEFAULT 'queued', worker TEXT, host TEXT, lease_until TIMESTAMPTZ,
  attempts BIGINT NOT NULL DEFAULT 0, runs_new BIGINT, runs_existing BIGINT, error TEXT,
  started TIMESTAMPTZ, finished TIMESTAMPTZ, UNIQUE(plan, shard, scope));
CREATE INDEX IF NOT EXISTS fleet_jobs_state ON fleet_jobs(state, id);
CREATE TABLE IF NOT EXISTS tensor_facts(kind TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,
  value DOUBLE PRECISION NOT NULL, PRIMARY KEY(kind, a, b));
CREATE TABLE IF NOT EXISTS platform_libraries(spec TEXT NOT NULL, host TEXT NOT NULL,
  library TEXT NOT NULL, version TEXT NOT NULL, PRIMARY KEY(spec, host));
)sql";

// A CREATE TABLE statement's table name and column names, read back from the DDL text.
using TableColumns = std::pair<std::string, std::vector<std::string>>;

std::vector<TableColumns> tables_in(const std::string& ddl) {
  std::vector<TableColumns> out;
  const std::string create = "CREATE TABLE IF NOT EXISTS ";
  for (size_t at = ddl.find(create); at != std::string::npos; at = ddl.find(create, at)) {
    at += create.size();
    const size_t open = ddl.find('(', at);
    TableColumns t{ddl.substr(at, open - at), {}};
    // Items are split at top-level commas; a column's name is its first word.
    int depth = 0;
    std::string item;
    for (size_t i = open + 1; depth >= 0; ++i) {
      const char c = ddl[i];
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      if ((c == ',' && depth == 0) || depth < 0) {
        const size_t first = item.find_first_not_of(" \n");
        const std::string name = item.substr(first, item.find_first_of(" (", first) - first);
        if (name != "PRIMARY" && name != "UNIQUE") t.second.push_back(name);
        item.clear();
      } else {
        item += c;
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

TEST(StoreSchemaDdl, SqliteIsTheTextEarlierStoresHold) {
  EXPECT_EQ(schema_sql(SqlDialect::kSqlite), kOldSqliteSchema);
}

TEST(StoreSchemaDdl, PostgresIsTheEarlierText) {
  EXPECT_EQ(schema_sql(SqlDialect::kPostgres), kOldPostgresSchema);
  EXPECT_EQ(pg_schema_sql(), kOldPostgresSchema);
}

TEST(StoreSchemaDdl, BothDialectsComeFromOneTableList) {
  std::vector<TableColumns> every, shared;
  for (const SqlTable& t : store_tables()) {
    TableColumns tc{t.name, {}};
    for (const SqlColumn& c : t.columns) tc.second.push_back(c.name);
    every.push_back(tc);
    if (!t.postgres_only) shared.push_back(tc);
  }
  ASSERT_EQ(shared.size(), 14u);  // the store's; the fleet's job queue is PostgreSQL's only
  EXPECT_EQ(tables_in(schema_sql(SqlDialect::kSqlite)), shared);
  EXPECT_EQ(tables_in(schema_sql(SqlDialect::kPostgres)), every);
}

TEST(StoreSchemaDdl, PostgresMakesPlatformLibrariesLast) {
  // pg_connect takes platform_libraries' presence as the sign that the whole schema is there.
  const auto postgres = tables_in(schema_sql(SqlDialect::kPostgres));
  ASSERT_FALSE(postgres.empty());
  EXPECT_EQ(postgres.back().first, "platform_libraries");
}

TEST(StoreSchemaDdl, NewStoreHoldsTheOldCreateStatements) {
  // What SQLite keeps of each statement: from CREATE to the ';', without IF NOT EXISTS.
  std::vector<std::string> expected;
  const std::string old = kOldSqliteSchema;
  for (size_t at = old.find("CREATE"); at != std::string::npos; at = old.find("CREATE", at)) {
    std::string statement = old.substr(at, old.find(';', at) - at);
    statement.erase(statement.find("IF NOT EXISTS "), 14);
    expected.push_back(statement);
    at += statement.size();
  }
  TempDir dir;
  ASSERT_TRUE(Store::open(dir.file("s.db")).ok());
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(dir.file("s.db").c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(h, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid",
                         -1, &st, nullptr),
      SQLITE_OK);
  std::vector<std::string> held;
  while (sqlite3_step(st) == SQLITE_ROW)
    held.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  sqlite3_close(h);
  ASSERT_EQ(expected.size(), 14u);
  EXPECT_EQ(held, expected);
}

// A PostgreSQL copy list as one line per table: name, order, run key, columns with kinds.
std::string described(const std::vector<const PgTable*>& tables) {
  std::string out;
  for (const PgTable* t : tables) {
    out += std::string(t->name) + " by " + t->order_by + (t->keyed_by_run ? " (run):" : ":");
    for (const PgColumn& c : t->columns) out += std::string(" ") + c.name + "/" + c.kind;
    out += "\n";
  }
  return out;
}

TEST(StoreSchemaDdl, PostgresCopyListsAreTheEarlierOnes) {
  std::vector<const PgTable*> tables;
  for (const PgTable& t : pg_plain_tables()) tables.push_back(&t);
  tables.push_back(&pg_runs_table());
  for (const PgTable& t : pg_run_tables()) tables.push_back(&t);
  // pg_tables.cpp's hand-written lists before they were derived from the schema, and the table
  // added since.
  EXPECT_EQ(described(tables),
            "meta by key: key/t value/t\n"
            "hosts by id: id/t fingerprint/t\n"
            "platforms by spec, host, oracle: spec/t host/t oracle/i\n"
            "models by hash: hash/t path/t name/t lineage/t\n"
            "graph_nodes by model, idx: model/t idx/i name/t op_type/t domain/t inputs/t "
            "outputs/t attributes/t\n"
            "inputs by hash: hash/t label/t recipe/t\n"
            "tensors by hash, dtype, shape: hash/t dtype/t shape/t nbytes/i data/b\n"
            "tensor_facts by kind, a, b: kind/t a/t b/t value/r\n"
            "platform_libraries by spec, host: spec/t host/t library/t version/t\n"
            "runs by model, input, platform, host, repetition: id/i model/t input/t platform/t "
            "host/t repetition/i verdict/t reason/t repro/t seconds/r\n"
            "node_outputs by run, value (run): run/i node_index/i value/t node/t op_type/t hash/t "
            "dtype/t shape/t is_output/i min/r max/r mean/r nan_count/i inf_count/i\n"
            "node_notes by run, value (run): run/i value/t note/t covers/t\n"
            "rejections by run, position (run): run/i position/i node/t op_type/t node_index/i "
            "reason/t\n"
            "self_checks by run, value, kind (run): run/i value/t kind/t spec/t nodes/t "
            "verdict/t reason/t hash/t dtype/t shape/t\n");
  for (const PgTable* t : tables) {
    const std::string on_conflict = t->on_conflict;
    if (t->name == std::string("tensors")) {
      EXPECT_EQ(on_conflict,
                "ON CONFLICT (hash, dtype, shape) DO UPDATE SET data = excluded.data "
                "WHERE tensors.data IS NULL AND excluded.data IS NOT NULL");
    } else {
      EXPECT_EQ(on_conflict, "ON CONFLICT DO NOTHING") << t->name;
    }
  }
}

}  // namespace
}  // namespace ig

// The store's tables, described once. The SQLite DDL (store.cpp), the PostgreSQL DDL and the
// PostgreSQL copy's column lists (pg_tables.cpp) are all generated from this list, so the two
// dialects cannot drift apart.
#pragma once

#include <string>
#include <vector>

namespace ig {

enum class SqlDialect { kSqlite, kPostgres };

enum class SqlType {
  kInteger,    // INTEGER; BIGINT
  kReal,       // REAL; DOUBLE PRECISION
  kText,       // TEXT
  kBlob,       // BLOB; BYTEA
  kRowId,      // an integer key the database assigns: INTEGER (rowid alias); BIGSERIAL
  kBool,       // PostgreSQL only: BOOLEAN
  kTimestamp,  // PostgreSQL only: TIMESTAMPTZ
};

struct SqlColumn {
  const char* name;
  SqlType type;
  bool nullable = false;
  const char* default_value = nullptr;  // an SQL expression: "0", "'queued'", "now()"
  const char* references = nullptr;     // "runs(id)"
};

struct SqlIndex {
  const char* name;
  std::vector<const char*> columns;
};

struct SqlTable {
  const char* name;
  std::vector<SqlColumn> columns;
  // One column: declared on that column ("hash TEXT PRIMARY KEY"); more: a table constraint.
  std::vector<const char*> primary_key = {};
  std::vector<const char*> unique = {};
  bool without_rowid = false;  // SQLite only
  bool postgres_only = false;  // the fleet's job queue, which lives only in PostgreSQL
  std::vector<SqlIndex> indexes = {};
};

// In the order they are made.
const std::vector<SqlTable>& store_tables();
// Every table of the dialect, CREATE ... IF NOT EXISTS, one statement after another.
std::string schema_sql(SqlDialect dialect);
// "a, b, c": a key's or an index's columns as the DDL writes them.
std::string sql_name_list(const std::vector<const char*>& names);

}  // namespace ig

// The store's tables as the PostgreSQL copy sees them: column names and kinds, in the order rows
// are copied (a run's rows after the run, whose id they follow). Derived from store/schema.h.
#pragma once

#include <string>
#include <vector>

namespace ig {

struct PgColumn {
  const char* name;
  char kind;  // 'i' integer, 'r' real, 't' text, 'b' blob (bytea)
};

struct PgTable {
  const char* name;
  std::vector<PgColumn> columns;
  // Rows are read in this order (the table's natural key): concurrent pushes then take row locks
  // in the same order and cannot deadlock one another.
  std::string order_by;
  bool keyed_by_run = false;  // first column is runs.id, remapped on push
  // What a push does with a row already there.
  const char* on_conflict = "ON CONFLICT DO NOTHING";
};

// Every table but runs, which is copied by its natural key in between.
const std::vector<PgTable>& pg_plain_tables();
const std::vector<PgTable>& pg_run_tables();
const PgTable& pg_runs_table();
// CREATE TABLE IF NOT EXISTS for the store and the fleet's job queue.
std::string pg_schema_sql();

}  // namespace ig

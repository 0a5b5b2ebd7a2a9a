#include "store/pg_tables.h"

#include <string_view>

#include "store/schema.h"

namespace ig {

namespace {

char kind_of(SqlType type) {
  switch (type) {
    case SqlType::kInteger:
    case SqlType::kRowId:
    case SqlType::kBool:
      return 'i';
    case SqlType::kReal:
      return 'r';
    case SqlType::kBlob:
      return 'b';
    case SqlType::kText:
    case SqlType::kTimestamp:
      return 't';
  }
  return 't';
}

bool is_runs(const SqlTable& t) { return t.name == std::string_view("runs"); }

bool keyed_by_run(const SqlTable& t) {
  const char* target = t.columns.at(0).references;
  return target && target == std::string_view("runs(id)");
}

PgTable pg_table(const SqlTable& t) {
  PgTable out{t.name, {}, {}};
  for (const SqlColumn& c : t.columns) out.columns.push_back({c.name, kind_of(c.type)});
  // The natural key: runs' primary key is a local id, so they go by their unique key.
  out.order_by = sql_name_list(is_runs(t) ? t.unique : t.primary_key);
  out.keyed_by_run = keyed_by_run(t);
  if (t.name == std::string_view("tensors")) {
    // A tensor a host did not keep (--keep-tensors none) takes another's bytes: blobs pushed
    // later may be XOR-encoded against it.
    out.on_conflict =
        "ON CONFLICT (hash, dtype, shape) DO UPDATE SET data = excluded.data "
        "WHERE tensors.data IS NULL AND excluded.data IS NOT NULL";
  }
  return out;
}

// The store's tables (not the fleet's) that `keep` selects, in the schema's order.
template <typename Keep>
std::vector<PgTable> pg_tables_where(Keep keep) {
  std::vector<PgTable> out;
  for (const SqlTable& t : store_tables())
    if (!t.postgres_only && keep(t)) out.push_back(pg_table(t));
  return out;
}

}  // namespace

const std::vector<PgTable>& pg_plain_tables() {
  static const std::vector<PgTable> tables =
      pg_tables_where([](const SqlTable& t) { return !is_runs(t) && !keyed_by_run(t); });
  return tables;
}

const PgTable& pg_runs_table() {
  static const PgTable runs = pg_tables_where(is_runs).at(0);
  return runs;
}

const std::vector<PgTable>& pg_run_tables() {
  static const std::vector<PgTable> tables = pg_tables_where(keyed_by_run);
  return tables;
}

std::string pg_schema_sql() { return schema_sql(SqlDialect::kPostgres); }

}  // namespace ig

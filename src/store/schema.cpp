#include "store/schema.h"

#include <string_view>

namespace ig {

const std::vector<SqlTable>& store_tables() {
  using enum SqlType;
  constexpr bool kNullable = true;
  // A run's rows follow its local id, remapped when stores merge or are pushed.
  constexpr SqlColumn run{.name = "run", .type = kInteger, .references = "runs(id)"};
  // Natural keys everywhere (hashes, spec strings), so stores from different machines merge by
  // plain INSERT OR IGNORE; only runs get a local integer id, remapped on merge.
  static const std::vector<SqlTable> tables = {
      {"meta", {{"key", kText}, {"value", kText}}, {"key"}},
      {"hosts", {{"id", kText}, {"fingerprint", kText}}, {"id"}},
      {"platforms",
       {{"spec", kText}, {"host", kText}, {"oracle", kInteger}},
       {"spec", "host", "oracle"}},
      {"models", {{"hash", kText}, {"path", kText}, {"name", kText}, {"lineage", kText}}, {"hash"}},
      {"graph_nodes",
       {{"model", kText},
        {"idx", kInteger},
        {"name", kText},
        {"op_type", kText},
        {"domain", kText},
        {"inputs", kText},
        {"outputs", kText},
        {"attributes", kText}},
       {"model", "idx"}},
      {"inputs", {{"hash", kText}, {"label", kText}, {"recipe", kText}}, {"hash"}},
      {"runs",
       {{"id", kRowId},
        {"model", kText},
        {"input", kText},
        {"platform", kText},
        {"host", kText},
        {"repetition", kInteger},
        {"verdict", kText},
        {"reason", kText},
        {"repro", kText},
        {"seconds", kReal}},
       {"id"},
       {"model", "input", "platform", "host", "repetition"}},
      {"node_outputs",
       {run,
        {"node_index", kInteger},
        {"value", kText},
        {"node", kText},
        {"op_type", kText},
        {"hash", kText},
        {"dtype", kText},
        {"shape", kText},
        {"is_output", kInteger},
        {"min", kReal, kNullable},
        {"max", kReal, kNullable},
        {"mean", kReal, kNullable},
        {"nan_count", kInteger, kNullable},
        {"inf_count", kInteger, kNullable}},
       {"run", "value"}},
      // data is NULL for a tensor whose bytes were not kept (--keep-tensors none).
      {"tensors",
       {{"hash", kText},
        {"dtype", kText},
        {"shape", kText},
        {"nbytes", kInteger},
        {"data", kBlob, kNullable}},
       {"hash", "dtype", "shape"}},
      {"node_notes", {run, {"value", kText}, {"note", kText}, {"covers", kText}}, {"run", "value"}},
      {"rejections",
       {run,
        {"position", kInteger},
        {"node", kText},
        {"op_type", kText},
        {"node_index", kInteger},
        {"reason", kText}},
       {"run", "position"}},
      {"self_checks",
       {run,
        {"value", kText},
        {"kind", kText},
        {"spec", kText},
        {"nodes", kText},
        {"verdict", kText},
        {"reason", kText},
        {"hash", kText},
        {"dtype", kText},
        {"shape", kText}},
       {"run", "value", "kind"}},
      {.name = "fleet_plans",
       .columns = {{"id", kRowId},
                   {"command", kText},
                   {"args", kText},
                   {"cwd", kText},
                   {"shards", kInteger},
                   {.name = "every_host", .type = kBool, .default_value = "false"},
                   {.name = "created", .type = kTimestamp, .default_value = "now()"}},
       .primary_key = {"id"},
       .postgres_only = true},
      {.name = "fleet_jobs",
       .columns = {{"id", kRowId},
                   {.name = "plan", .type = kInteger, .references = "fleet_plans(id)"},
                   {"shard", kInteger},
                   {.name = "scope", .type = kText, .default_value = "''"},
                   {.name = "state", .type = kText, .default_value = "'queued'"},
                   {"worker", kText, kNullable},
                   {"host", kText, kNullable},
                   {"lease_until", kTimestamp, kNullable},
                   {.name = "attempts", .type = kInteger, .default_value = "0"},
                   {"runs_new", kInteger, kNullable},
                   {"runs_existing", kInteger, kNullable},
                   {"error", kText, kNullable},
                   {"started", kTimestamp, kNullable},
                   {"finished", kTimestamp, kNullable}},
       .primary_key = {"id"},
       .unique = {"plan", "shard", "scope"},
       .postgres_only = true,
       .indexes = {{"fleet_jobs_state", {"state", "id"}}}},
      // WITHOUT ROWID: small rows looked up by their whole key.
      {.name = "tensor_facts",
       .columns = {{"kind", kText}, {"a", kText}, {"b", kText}, {"value", kReal}},
       .primary_key = {"kind", "a", "b"},
       .without_rowid = true},
      // The library a platform ran on a host and its version, as the library reported it (its
      // latest run's). Like tensor_facts, a store without it reads as one that knows none.
      // Made last: pg_connect takes this table's presence as the sign that the schema is complete.
      {.name = "platform_libraries",
       .columns = {{"spec", kText}, {"host", kText}, {"library", kText}, {"version", kText}},
       .primary_key = {"spec", "host"},
       .without_rowid = true},
  };
  return tables;
}

namespace {

// Stores made before the DDL was generated hold its hand-wrapped text, and SQLite keeps a CREATE
// statement's text verbatim: new stores repeat that text byte for byte. Its rule, read off that
// text: a line takes items while it stays within kMaxLine columns; a continuation line is
// indented by two spaces.
constexpr size_t kMaxLine = 96;

// The hand-wrapped lines that broke the rule, kept as they were: an item that starts a line
// though it would fit (kBreak), or stays on it though the line grows past kMaxLine (kJoin).
enum class Wrap { kBreak, kJoin };
struct WrapException {
  SqlDialect dialect;
  std::string_view table;
  std::string_view item;  // a column's name, or "PRIMARY KEY" / "UNIQUE"
  Wrap wrap;
};
constexpr WrapException kWrapExceptions[] = {
    {SqlDialect::kSqlite, "node_outputs", "PRIMARY KEY", Wrap::kBreak},
    {SqlDialect::kSqlite, "rejections", "node_index", Wrap::kJoin},
    {SqlDialect::kPostgres, "fleet_jobs", "lease_until", Wrap::kJoin},
};

const WrapException* wrap_exception(SqlDialect dialect, std::string_view table,
                                    std::string_view item) {
  for (const WrapException& e : kWrapExceptions)
    if (e.dialect == dialect && e.table == table && e.item == item) return &e;
  return nullptr;
}

const char* type_name(SqlType type, SqlDialect dialect) {
  const bool pg = dialect == SqlDialect::kPostgres;
  switch (type) {
    case SqlType::kInteger:
      return pg ? "BIGINT" : "INTEGER";
    case SqlType::kReal:
      return pg ? "DOUBLE PRECISION" : "REAL";
    case SqlType::kText:
      return "TEXT";
    case SqlType::kBlob:
      return pg ? "BYTEA" : "BLOB";
    case SqlType::kRowId:
      return pg ? "BIGSERIAL" : "INTEGER";
    case SqlType::kBool:
      return pg ? "BOOLEAN" : "INTEGER";
    case SqlType::kTimestamp:
      return pg ? "TIMESTAMPTZ" : "TEXT";
  }
  return "";
}

// One comma-separated part of a CREATE TABLE: a column or a table constraint.
struct Item {
  std::string_view name;
  std::string text;
};

std::vector<Item> items_of(const SqlTable& t, SqlDialect dialect) {
  std::vector<Item> items;
  const bool key_on_column = t.primary_key.size() == 1;
  for (const SqlColumn& c : t.columns) {
    std::string text = std::string(c.name) + " " + type_name(c.type, dialect);
    if (key_on_column && std::string_view(t.primary_key[0]) == c.name) {
      text += " PRIMARY KEY";
    } else if (!c.nullable) {
      text += " NOT NULL";
    }
    if (c.default_value) text += std::string(" DEFAULT ") + c.default_value;
    if (c.references) text += std::string(" REFERENCES ") + c.references;
    items.push_back({c.name, std::move(text)});
  }
  if (t.primary_key.size() > 1)
    items.push_back({"PRIMARY KEY", "PRIMARY KEY(" + sql_name_list(t.primary_key) + ")"});
  if (!t.unique.empty()) items.push_back({"UNIQUE", "UNIQUE(" + sql_name_list(t.unique) + ")"});
  return items;
}

std::string create_table(const SqlTable& t, SqlDialect dialect) {
  const std::vector<Item> items = items_of(t, dialect);
  std::string end = ")";
  if (t.without_rowid && dialect == SqlDialect::kSqlite) end += " WITHOUT ROWID";
  end += ";";
  std::string out;
  std::string line = std::string("CREATE TABLE IF NOT EXISTS ") + t.name + "(";
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string text = items[i].text + (i + 1 == items.size() ? end : ",");
    if (i == 0) {
      line += text;
      continue;
    }
    const WrapException* e = wrap_exception(dialect, t.name, items[i].name);
    const bool fits = line.size() + 1 + text.size() <= kMaxLine;
    if (e ? e->wrap == Wrap::kBreak : !fits) {
      out += line + "\n";
      line = "  " + text;
    } else {
      line += " " + text;
    }
  }
  out += line + "\n";
  for (const SqlIndex& index : t.indexes)
    out += std::string("CREATE INDEX IF NOT EXISTS ") + index.name + " ON " + t.name + "(" +
           sql_name_list(index.columns) + ");\n";
  return out;
}

}  // namespace

std::string sql_name_list(const std::vector<const char*>& names) {
  std::string out;
  for (const char* name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

std::string schema_sql(SqlDialect dialect) {
  std::string out = "\n";
  for (const SqlTable& t : store_tables())
    if (dialect == SqlDialect::kPostgres || !t.postgres_only) out += create_table(t, dialect);
  return out;
}

}  // namespace ig

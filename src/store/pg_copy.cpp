// Copying rows between a SQLite store and PostgreSQL (store/pg_store.h). Values travel as
// PostgreSQL text (bytea in its \x hex form), in multi-row INSERTs: a round trip per row would
// cost a fleet more than its runs.
#include <sqlite3.h>

#include <fmt/format.h>

#include <array>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>

#include "store/pg_store.h"
#include "store/pg_tables.h"
#include "store/sqlite_util.h"
#include "store/store.h"

namespace ig {

namespace {

using Row = std::vector<std::optional<std::string>>;

std::string hex_bytea(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\\x";
  out.reserve(2 + 2 * bytes.size());
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string column_list(const PgTable& t, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < t.columns.size(); ++i) {
    if (!out.empty()) out += ", ";
    out += t.columns[i].name;
  }
  return out;
}

// Calls `each` with every row of a SQLite table, as PostgreSQL text values.
Status read_sqlite_rows(sqlite3* db, const PgTable& t, const std::string& where,
                        const std::function<Status(Row&)>& each) {
  const std::string sql = fmt::format("SELECT {} FROM {} {} ORDER BY {}", column_list(t), t.name,
                                      where.empty() ? "" : "WHERE " + where, t.order_by);
  sql::Stmt st(db, sql.c_str());
  IG_RETURN_IF_ERROR(st.status());
  Row row(t.columns.size());
  while (st.step()) {
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const int col = static_cast<int>(c);
      if (st.is_null(col)) {
        row[c].reset();
        continue;
      }
      switch (t.columns[c].kind) {
        case 'i':
          row[c] = std::to_string(st.integer(col));
          break;
        case 'r':
          row[c] = fmt::format("{}", st.real(col));
          break;
        case 'b':
          row[c] = hex_bytea(st.blob(col));
          break;
        default:
          row[c] = st.text(col);
          break;
      }
    }
    IG_RETURN_IF_ERROR(each(row));
  }
  return st.status();
}

// Multi-row INSERT ... ON CONFLICT DO NOTHING into one table; `returning` rows come back to
// `on_result` per flush.
class BatchInsert {
 public:
  BatchInsert(pqxx::dbtransaction& tx, const PgTable& t, size_t first_column = 0,
              std::string returning = "")
      : tx_(tx), table_(t), first_(first_column), returning_(std::move(returning)) {
    const size_t n = t.columns.size() - first_;
    rows_per_batch_ = std::max<size_t>(1, std::min<size_t>(500, 30000 / n));
  }
  std::function<void(const pqxx::result&)> on_result;
  int64_t inserted = 0;

  void add(const Row& row) {
    for (size_t c = first_; c < row.size(); ++c) {
      if (row[c]) bytes_ += row[c]->size();
      values_.push_back(row[c]);
    }
    // Tensors are large: a batch is also bounded by its size, not only by its row count.
    if (++rows_ == rows_per_batch_ || bytes_ >= kMaxBatchBytes) flush();
  }
  void flush() {
    if (rows_ == 0) return;
    const size_t n = table_.columns.size() - first_;
    std::string sql =
        fmt::format("INSERT INTO {}({}) VALUES ", table_.name, column_list(table_, first_));
    for (size_t r = 0; r < rows_; ++r) {
      sql += r ? ",(" : "(";
      for (size_t c = 0; c < n; ++c) sql += fmt::format("{}${}", c ? "," : "", r * n + c + 1);
      sql += ")";
    }
    sql += " ";
    sql += table_.on_conflict;
    if (!returning_.empty()) sql += " RETURNING " + returning_;
    std::vector<const char*> params;
    params.reserve(values_.size());
    for (const auto& v : values_) params.push_back(v ? v->c_str() : nullptr);
    const pqxx::result r = tx_.exec_params(sql, pqxx::prepare::make_dynamic_params(params));
    inserted += static_cast<int64_t>(r.affected_rows());
    if (on_result) on_result(r);
    values_.clear();
    rows_ = 0;
    bytes_ = 0;
  }

 private:
  pqxx::dbtransaction& tx_;
  const PgTable& table_;
  size_t first_;
  std::string returning_;
  static constexpr size_t kMaxBatchBytes = size_t{32} << 20;
  size_t rows_per_batch_ = 1, rows_ = 0, bytes_ = 0;
  std::vector<std::optional<std::string>> values_;
};

using NaturalKey = std::array<std::string, 5>;  // model, input, platform, host, repetition

NaturalKey run_key_of(const Row& row) {  // a runs row: id first
  return {*row[1], *row[2], *row[3], *row[4], *row[5]};
}

Status check_source_version(sqlite3* db, const std::string& path) {
  sql::Stmt v(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  IG_RETURN_IF_ERROR(v.status().ok() ? Status::Ok()
                                     : v.status().with_context(path + " is not an infergap store"));
  const std::string version = v.step() ? v.text(0) : "1";
  if (!schema_version_supported(version))
    return invalid_argument("{} is a store of schema version {}; this infergap writes {}", path,
                            version, supported_schema_versions());
  return Status::Ok();
}

// A snapshot pulled from PostgreSQL (pg_pull) records how far each table went then: pushing it
// back sends only rows added since (and tensors that had no bytes then and have now), instead of
// the whole store again. Other stores (a fleet job's, a file) are sent whole.
class PushFilter {
 public:
  static Expected<PushFilter> of(sqlite3* db) {
    PushFilter f;
    sql::Stmt has(db,
                  "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'snapshot_marks'");
    if (!has.step()) {
      IG_RETURN_IF_ERROR(has.status());
      return f;
    }
    sql::Stmt st(db, "SELECT tbl, rowid_mark FROM snapshot_marks");
    while (st.step()) f.marks_[st.text(0)] = st.integer(1);
    IG_RETURN_IF_ERROR(st.status());
    return f;
  }
  std::string where(const PgTable& t) const {
    auto it = marks_.find(t.name);
    if (it == marks_.end()) return "";
    std::string w = fmt::format("rowid > {}", it->second);
    if (t.name == std::string_view("tensors"))
      w += " OR (data IS NOT NULL AND rowid IN (SELECT id FROM snapshot_null_tensors))";
    return w;
  }

 private:
  std::map<std::string, int64_t> marks_;
};

// Remembers, in the snapshot, what pg_pull copied (see PushFilter).
Status mark_pulled(sqlite3* db) {
  sql::Stmt make(db,
                 "CREATE TABLE snapshot_marks(tbl TEXT PRIMARY KEY, rowid_mark INTEGER NOT NULL)");
  IG_RETURN_IF_ERROR(make.run());
  std::vector<const PgTable*> tables{&pg_runs_table()};
  for (const auto* list : {&pg_plain_tables(), &pg_run_tables()})
    for (const PgTable& t : *list) tables.push_back(&t);
  for (const PgTable* t : tables) {
    // WITHOUT ROWID; small.
    if (t->name == std::string_view("tensor_facts") ||
        t->name == std::string_view("platform_libraries"))
      continue;
    const std::string sql =
        fmt::format("INSERT INTO snapshot_marks SELECT '{}', coalesce(max(rowid), 0) FROM {}",
                    t->name, t->name);
    sql::Stmt mark(db, sql.c_str());
    IG_RETURN_IF_ERROR(mark.run());
  }
  sql::Stmt nulls(db,
                  "CREATE TABLE snapshot_null_tensors AS SELECT rowid AS id FROM tensors WHERE "
                  "data IS NULL");
  return nulls.run();
}

// The PostgreSQL id of a run stored there already, by its natural key.
Expected<int64_t> pg_id_of(pqxx::dbtransaction& tx, const NaturalKey& key) {
  const pqxx::result r = tx.exec_params(
      "SELECT id FROM runs WHERE model = $1 AND input = $2 AND platform = $3 AND host = $4 "
      "AND repetition = $5",
      key[0], key[1], key[2], key[3], key[4]);
  if (r.empty())
    return internal_error("run of {} on {} is neither in PostgreSQL nor pushed", key[0], key[2]);
  return r[0][0].as<int64_t>();
}

// The PostgreSQL id of the source store's run `source_id` (a run pulled earlier, whose rows this
// push adds to).
Expected<int64_t> pg_run_id(pqxx::dbtransaction& tx, sqlite3* db, int64_t source_id) {
  sql::Stmt st(db, "SELECT model, input, platform, host, repetition FROM runs WHERE id = ?");
  if (!st.bind(1, source_id).step()) {
    IG_RETURN_IF_ERROR(st.status());
    return internal_error("a row of run {}, which the store lacks", source_id);
  }
  return pg_id_of(tx, {st.text(0), st.text(1), st.text(2), st.text(3), st.text(4)});
}

Expected<CopyCounts> push_rows(pqxx::dbtransaction& tx, sqlite3* db) {
  CopyCounts counts;
  IG_ASSIGN_OR_RETURN(const PushFilter filter, PushFilter::of(db));
  for (const PgTable& t : pg_plain_tables()) {
    BatchInsert insert(tx, t);
    IG_RETURN_IF_ERROR(read_sqlite_rows(db, t, filter.where(t), [&](Row& row) {
      insert.add(row);
      return Status::Ok();
    }));
    insert.flush();
    counts.rows += insert.inserted;
  }
  // Runs by natural key: a run stored already (by another host's copy of the same job, or an
  // earlier push) keeps its id, and this copy's rows for it add only values it lacks.
  const PgTable& runs = pg_runs_table();
  std::map<NaturalKey, int64_t> source_id;
  std::map<int64_t, int64_t> id_in_pg;
  BatchInsert insert(tx, runs, 1, "id, model, input, platform, host, repetition");
  insert.on_result = [&](const pqxx::result& r) {
    for (const auto& row : r) {
      const NaturalKey key{row[1].c_str(), row[2].c_str(), row[3].c_str(), row[4].c_str(),
                           row[5].c_str()};
      const auto src = source_id.find(key);
      if (src == source_id.end())
        throw std::runtime_error("PostgreSQL returned a run this copy did not insert");
      id_in_pg[src->second] = row[0].as<int64_t>();
    }
  };
  IG_RETURN_IF_ERROR(read_sqlite_rows(db, runs, filter.where(runs), [&](Row& row) {
    source_id[run_key_of(row)] = std::stoll(*row[0]);
    insert.add(row);
    return Status::Ok();
  }));
  insert.flush();
  counts.runs_new = insert.inserted;
  for (const auto& [key, src] : source_id) {
    if (id_in_pg.count(src)) continue;
    IG_ASSIGN_OR_RETURN(id_in_pg[src], pg_id_of(tx, key));
    ++counts.runs_existing;
  }
  for (const PgTable& t : pg_run_tables()) {
    BatchInsert rows(tx, t);
    IG_RETURN_IF_ERROR(read_sqlite_rows(db, t, filter.where(t), [&](Row& row) {
      const int64_t source = std::stoll(*row[0]);
      auto run = id_in_pg.find(source);
      if (run == id_in_pg.end()) {  // rows added to a run pulled earlier (traces, self-checks)
        IG_ASSIGN_OR_RETURN(const int64_t id, pg_run_id(tx, db, source));
        run = id_in_pg.emplace(source, id).first;
      }
      row[0] = std::to_string(run->second);
      rows.add(row);
      return Status::Ok();
    }));
    rows.flush();
    counts.rows += rows.inserted;
  }
  {
    // Tensors without bytes pushed: the store is version 5 from now on (store.h).
    sql::Stmt without(db, "SELECT EXISTS(SELECT 1 FROM tensors WHERE data IS NULL)");
    if (without.step() && without.integer(0) != 0) tx.exec(kMarkTensorsWithoutBytes);
    IG_RETURN_IF_ERROR(without.status());
  }
  return counts;
}

}  // namespace

Expected<CopyCounts> pg_push(pqxx::dbtransaction& tx, const std::string& sqlite_path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(sqlite_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return io_error("{}: cannot open store: {}", sqlite_path, why);
  }
  std::exception_ptr retry;  // a deadlock or serialization failure: the caller retries
  auto result = [&]() -> Expected<CopyCounts> {
    IG_RETURN_IF_ERROR(check_source_version(db, sqlite_path));
    try {
      return push_rows(tx, db);
    } catch (const pqxx::transaction_rollback& e) {
      retry = std::current_exception();
      return io_error("copying {} into PostgreSQL: {}", sqlite_path, e.what());
    } catch (const std::exception& e) {
      return io_error("copying {} into PostgreSQL: {}", sqlite_path, e.what());
    }
  }();
  sql::forget_cached(db);
  sqlite3_close_v2(db);
  if (retry) std::rethrow_exception(retry);
  return result;
}

namespace {

// Copies one PostgreSQL table into the SQLite store through a cursor (tensors may not fit in
// memory at once).
Status pull_table(pqxx::dbtransaction& tx, sqlite3* db, const PgTable& t, int64_t* rows) {
  std::string marks;
  for (size_t c = 0; c < t.columns.size(); ++c) marks += c ? ",?" : "?";
  const std::string insert_sql =
      fmt::format("INSERT OR IGNORE INTO {}({}) VALUES({})", t.name, column_list(t), marks);
  tx.exec(
      fmt::format("DECLARE pull NO SCROLL CURSOR FOR SELECT {} FROM {}", column_list(t), t.name));
  for (;;) {
    // Tensor rows may be megabytes each: fetch fewer at a time.
    const pqxx::result r = tx.exec(t.name == std::string_view("tensors") ? "FETCH 50 FROM pull"
                                                                         : "FETCH 2000 FROM pull");
    if (r.empty()) break;
    for (const auto& row : r) {
      sql::Stmt ins(db, insert_sql.c_str());
      for (size_t c = 0; c < t.columns.size(); ++c) {
        const int i = static_cast<int>(c) + 1;
        const pqxx::field f = row[static_cast<pqxx::row::size_type>(c)];
        if (f.is_null()) {
          ins.bind_null(i);
          continue;
        }
        switch (t.columns[c].kind) {
          case 'i':
            ins.bind(i, f.as<int64_t>());
            break;
          case 'r':
            ins.bind(i, f.as<double>());
            break;
          case 'b': {
            const pqxx::binarystring bytes(f);
            ins.bind_blob(i, bytes.data(), bytes.size());
            break;
          }
          default:
            ins.bind(i, std::string_view(f.c_str(), f.size()));
            break;
        }
      }
      IG_RETURN_IF_ERROR(ins.run());
      ++*rows;
    }
  }
  tx.exec("CLOSE pull");
  return Status::Ok();
}

}  // namespace

Expected<CopyCounts> pg_pull(pqxx::connection& conn, Store& dest, const std::string& url) {
  CopyCounts counts;
  sql::Transaction stx(dest.db());
  IG_RETURN_IF_ERROR(stx.status());
  try {
    // One snapshot of the whole store: runs written meanwhile by the fleet are either all in
    // or all out, never a run without its rows.
    pqxx::transaction<pqxx::repeatable_read, pqxx::read_only> tx(conn);
    // Doubles as exact text, whatever the server's default (older servers round to 15 digits).
    tx.exec("SET LOCAL extra_float_digits = 3");
    for (const PgTable& t : pg_plain_tables())
      IG_RETURN_IF_ERROR(pull_table(tx, dest.db(), t, &counts.rows));
    int64_t runs = 0;
    IG_RETURN_IF_ERROR(pull_table(tx, dest.db(), pg_runs_table(), &runs));
    counts.runs_new = runs;
    for (const PgTable& t : pg_run_tables())
      IG_RETURN_IF_ERROR(pull_table(tx, dest.db(), t, &counts.rows));
    IG_RETURN_IF_ERROR(mark_pulled(dest.db()));
    tx.commit();
  } catch (const std::exception& e) {
    return io_error("reading {}: {}", redact_url(url), e.what());
  }
  IG_RETURN_IF_ERROR(stx.commit());
  return counts;
}

}  // namespace ig

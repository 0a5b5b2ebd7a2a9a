// Thin RAII helpers over the SQLite C API: prepared statements and transactions.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "core/status.h"

namespace ig::sql {

inline Status error(sqlite3* db, std::string_view what) {
  return io_error("{}: {}: {}",
                  sqlite3_db_filename(db, "main") ? sqlite3_db_filename(db, "main") : "store", what,
                  sqlite3_errmsg(db));
}

// Prepared statements kept per connection and reused: a campaign writes thousands of small runs,
// and parsing the same SQL for each was a fifth of the coordinator's time. take() hands out a
// statement not in use (or nullptr), give() takes it back reset; forget() finalizes a
// connection's statements and must run before the connection closes. Thread-safe.
sqlite3_stmt* take_cached(sqlite3* db, std::string_view sql);
void give_cached(sqlite3* db, std::string_view sql, sqlite3_stmt* stmt);
void forget_cached(sqlite3* db);

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db), sql_(sql) {
    stmt_ = take_cached(db, sql_);
    if (stmt_) return;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK) {
      status_ = error(db, std::string("prepare '") + sql + "'");
      sqlite3_finalize(stmt_);
      stmt_ = nullptr;
    }
  }
  ~Stmt() {
    if (!stmt_) return;
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    give_cached(db_, sql_, stmt_);
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  const Status& status() const { return status_; }
  // Parameters are 1-based, as in SQLite.
  Stmt& bind(int i, std::string_view s) {
    if (stmt_) sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, const char* s) { return bind(i, std::string_view(s)); }
  Stmt& bind(int i, const std::string& s) { return bind(i, std::string_view(s)); }
  Stmt& bind(int i, int64_t v) {
    if (stmt_) sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, double v) {
    if (stmt_) sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Stmt& bind_blob(int i, const void* data, size_t n) {
    if (stmt_) sqlite3_bind_blob64(stmt_, i, data, n, SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind_null(int i) {
    if (stmt_) sqlite3_bind_null(stmt_, i);
    return *this;
  }

  // true: a row is ready; false: done. Errors land in status().
  bool step() {
    if (!stmt_) return false;
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) status_ = error(db_, "step");
    return false;
  }
  Status run() {
    step();
    return status_;
  }
  void reset() {
    if (stmt_) {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
    }
  }

  std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string_view blob(int col) const {
    const void* p = sqlite3_column_blob(stmt_, col);
    return {static_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
  }

 private:
  sqlite3* db_;
  std::string sql_;
  sqlite3_stmt* stmt_ = nullptr;
  Status status_;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back unless commit() succeeded.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
      status_ = error(db, "begin transaction");
  }
  ~Transaction() {
    if (status_.ok() && !done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  const Status& status() const { return status_; }
  Status commit() {
    if (!status_.ok()) return status_;
    if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
      return error(db_, "commit");
    done_ = true;
    return Status::Ok();
  }

 private:
  sqlite3* db_;
  Status status_;
  bool done_ = false;
};

}  // namespace ig::sql

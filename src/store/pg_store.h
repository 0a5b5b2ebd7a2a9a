// PostgreSQL as the shared store of a fleet (docs/FLEET.md): the same tables and schema version
// as the SQLite store, written by many hosts at once. Analyses run on SQLite, so a command given a
// postgresql:// URL reads a snapshot pulled into a local file (Store::open), and a host's finished
// work is pushed in one transaction: runs by their unique key, tensors by content, both with
// ON CONFLICT DO NOTHING, so two hosts storing the same tensor or run never collide or duplicate.
#pragma once

#include <pqxx/pqxx>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ig {

class Store;

bool is_postgres_url(std::string_view text);
// The text with every URL's password (and password=... option) replaced by "***", for every
// message that names a store.
std::string redact_url(const std::string& text);
// Also removes the password of `url` where the text quotes it bare (libpq's own messages).
std::string redact_secrets(std::string text, const std::string& url);

// Connects, creates the tables where missing (under an advisory lock: many workers start at
// once) and checks the schema version. Errors name the redacted URL.
Expected<std::unique_ptr<pqxx::connection>> pg_connect(const std::string& url);

struct CopyCounts {
  int64_t runs_new = 0, runs_existing = 0, rows = 0;
};

// Copies every row of the SQLite store at `sqlite_path` into PostgreSQL inside `tx`; the caller
// commits (a fleet worker commits with its job's completion, or not at all).
Expected<CopyCounts> pg_push(pqxx::dbtransaction& tx, const std::string& sqlite_path);
// Copies every row of the PostgreSQL store into `dest` (an open SQLite store), in one SQLite
// transaction and one PostgreSQL snapshot.
Expected<CopyCounts> pg_pull(pqxx::connection& conn, Store& dest, const std::string& url);

}  // namespace ig

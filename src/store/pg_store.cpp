#include "store/pg_store.h"

#include <regex>

#include "store/pg_tables.h"
#include "store/store.h"

namespace ig {

bool is_postgres_url(std::string_view text) {
  return text.starts_with("postgresql://") || text.starts_with("postgres://");
}

std::string redact_url(const std::string& url) {
  // scheme://user:password@host...: keep the user, hide the password; also a password=... option.
  static const std::regex userinfo(R"(^([a-z]+://[^:/@?]*):[^@/?]*@)");
  static const std::regex option(R"(([?&]password=)[^&]*)");
  std::string out = std::regex_replace(url, userinfo, "$1:***@");
  return std::regex_replace(out, option, "$1***");
}

Expected<std::unique_ptr<pqxx::connection>> pg_connect(const std::string& url) {
  const std::string shown = redact_url(url);
  std::unique_ptr<pqxx::connection> conn;
  try {
    conn = std::make_unique<pqxx::connection>(url);
  } catch (const std::exception& e) {
    // libpq's message may quote the connection string; it never holds the password here because
    // the message is about the server's answer, but it is redacted all the same.
    std::string why = e.what();
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    return io_error("cannot connect to {}: {}", shown, redact_url(why));
  }
  try {
    pqxx::work tx(*conn);
    // One schema maker at a time: CREATE TABLE IF NOT EXISTS races between sessions.
    tx.exec("SELECT pg_advisory_xact_lock(7120419)");
    tx.exec(pg_schema_sql());
    auto r = tx.exec("SELECT value FROM meta WHERE key = 'schema_version'");
    if (r.empty()) {
      tx.exec_params("INSERT INTO meta(key, value) VALUES('schema_version', $1)",
                     std::to_string(kStoreSchemaVersion));
    } else if (r[0][0].c_str() != std::to_string(kStoreSchemaVersion)) {
      return invalid_argument(
          "{} holds an infergap store of schema version {}; this infergap reads version {}", shown,
          r[0][0].c_str(), kStoreSchemaVersion);
    }
    tx.commit();
  } catch (const std::exception& e) {
    return io_error("{}: cannot set up the store: {}", shown, e.what());
  }
  return conn;
}

}  // namespace ig

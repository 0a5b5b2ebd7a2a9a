#include "store/sqlite_util.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ig::sql {

namespace {

// Idle statements per connection and SQL text. A statement in use is not here, so a nested use
// of the same SQL (a query inside another's loop) prepares a second one.
struct Cache {
  std::mutex mu;
  std::map<sqlite3*, std::map<std::string, std::vector<sqlite3_stmt*>, std::less<>>> idle;
};

Cache& cache() {
  static Cache* c = new Cache();  // never destroyed: statements may be given back at exit
  return *c;
}

// Dynamic SQL (table names, ATTACHed schemas) makes the set of texts open-ended in principle.
constexpr size_t kMaxTextsPerConnection = 256;

}  // namespace

sqlite3_stmt* take_cached(sqlite3* db, std::string_view sql) {
  Cache& c = cache();
  std::lock_guard lock(c.mu);
  auto conn = c.idle.find(db);
  if (conn == c.idle.end()) return nullptr;
  auto it = conn->second.find(sql);
  if (it == conn->second.end() || it->second.empty()) return nullptr;
  sqlite3_stmt* s = it->second.back();
  it->second.pop_back();
  return s;
}

void give_cached(sqlite3* db, std::string_view sql, sqlite3_stmt* stmt) {
  Cache& c = cache();
  {
    std::lock_guard lock(c.mu);
    auto& texts = c.idle[db];
    auto it = texts.find(sql);
    if (it == texts.end() && texts.size() < kMaxTextsPerConnection)
      it = texts.emplace(std::string(sql), std::vector<sqlite3_stmt*>{}).first;
    if (it != texts.end() && it->second.size() < 4) {
      it->second.push_back(stmt);
      return;
    }
  }
  sqlite3_finalize(stmt);
}

void forget_cached(sqlite3* db) {
  std::vector<sqlite3_stmt*> dead;
  {
    Cache& c = cache();
    std::lock_guard lock(c.mu);
    auto conn = c.idle.find(db);
    if (conn == c.idle.end()) return;
    for (auto& [sql, stmts] : conn->second) dead.insert(dead.end(), stmts.begin(), stmts.end());
    c.idle.erase(conn);
  }
  for (auto* s : dead) sqlite3_finalize(s);
}

}  // namespace ig::sql

#include "store/pg_store.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <vector>

#include "store/pg_tables.h"
#include "store/store.h"

namespace ig {

bool is_postgres_url(std::string_view text) {
  return text.starts_with("postgresql://") || text.starts_with("postgres://");
}

std::string redact_url(const std::string& text) {
  // Anywhere in the text (an error message may quote the URL, a mistyped URL may lack its
  // scheme's exact spelling): scheme://user:password@ keeps the user; password=... options and
  // conninfo keywords lose their value.
  static const std::regex userinfo(R"(([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*):[^@\s]*@)");
  static const std::regex option(R"(((?:^|[?&\s])password\s*=\s*)('[^']*'|[^&\s]*))",
                                 std::regex::icase);
  std::string out = std::regex_replace(text, userinfo, "$1:***@");
  return std::regex_replace(out, option, "$1***");
}

namespace {

std::string percent_decoded(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

std::string redact_secrets(std::string text, const std::string& url) {
  // The password as written in the URL and as libpq decoded it: a server or library message
  // may quote either.
  static const std::regex password(R"(^[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:([^@\s]*)@)");
  std::smatch m;
  std::vector<std::string> secrets;
  if (std::regex_search(url, m, password) && m[1].length() > 0) {
    secrets.push_back(m[1].str());
    secrets.push_back(percent_decoded(m[1].str()));
  }
  // One scan for all of them, longest first, never looking into a mask already written: a
  // password of asterisks must not match its own mask.
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::string out;
  for (size_t at = 0; at < text.size();) {
    auto hit = std::find_if(secrets.begin(), secrets.end(), [&](const std::string& secret) {
      return text.compare(at, secret.size(), secret) == 0;
    });
    if (hit == secrets.end()) {
      out += text[at++];
    } else {
      out += "***";
      at += hit->size();
    }
  }
  return redact_url(out);
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
    return io_error("cannot connect to {}: {}", shown, redact_secrets(why, url));
  }
  try {
    pqxx::work tx(*conn);
    // Tables made already (platform_libraries is made last): no DDL, so a read-only role can
    // connect.
    if (tx.exec("SELECT to_regclass('platform_libraries') IS NULL")[0][0].as<bool>()) {
      // One schema maker at a time: CREATE TABLE IF NOT EXISTS races between sessions.
      tx.exec("SELECT pg_advisory_xact_lock(7120419)");
      tx.exec(pg_schema_sql());
    }
    auto r = tx.exec("SELECT value FROM meta WHERE key = 'schema_version'");
    if (r.empty()) {
      tx.exec_params("INSERT INTO meta(key, value) VALUES('schema_version', $1)",
                     std::to_string(kStoreSchemaVersion));
    } else if (!schema_version_supported(r[0][0].c_str())) {
      return invalid_argument(
          "{} holds an infergap store of schema version {}; this infergap reads {}", shown,
          r[0][0].c_str(), supported_schema_versions());
    }
    tx.commit();
  } catch (const std::exception& e) {
    return io_error("{}: cannot set up the store: {}", shown, redact_secrets(e.what(), url));
  }
  return conn;
}

}  // namespace ig

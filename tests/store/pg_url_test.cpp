#include <gtest/gtest.h>

#include "store/pg_store.h"

namespace ig {
namespace {

TEST(PgUrl, RecognisesBothSchemes) {
  EXPECT_TRUE(is_postgres_url("postgresql://u@h/db"));
  EXPECT_TRUE(is_postgres_url("postgres://h/db"));
  EXPECT_FALSE(is_postgres_url("study.db"));
  EXPECT_FALSE(is_postgres_url("file:postgresql://x"));
}

TEST(PgUrl, RedactsThePasswordAndKeepsTheRest) {
  EXPECT_EQ(redact_url("postgresql://ig:s3cret@db.example:5433/fleet"),
            "postgresql://ig:***@db.example:5433/fleet");
  EXPECT_EQ(redact_url("postgresql://ig:p%40ss@/fleet?host=/tmp/x&port=5"),
            "postgresql://ig:***@/fleet?host=/tmp/x&port=5");
  EXPECT_EQ(redact_url("postgresql://h/db?user=ig&password=hunter2&sslmode=require"),
            "postgresql://h/db?user=ig&password=***&sslmode=require");
  EXPECT_EQ(redact_url("postgresql://ig@h/db"), "postgresql://ig@h/db");
  // A password holding '?' and '/', a URL inside a message, a mistyped scheme, conninfo text.
  EXPECT_EQ(redact_url("postgresql://ig:a?b/c@h/db"), "postgresql://ig:***@h/db");
  EXPECT_EQ(redact_url("--store 'postgresq://ig:pw@h/db': expected a postgresql:// URL"),
            "--store 'postgresq://ig:***@h/db': expected a postgresql:// URL");
  EXPECT_EQ(redact_url("host=h user=ig password=pw dbname=x"),
            "host=h user=ig password=*** dbname=x");
}

TEST(PgUrl, RedactsTheBarePasswordFromLibraryMessages) {
  const std::string url = "postgresql://ig:p%40ss!@h/db";
  EXPECT_EQ(redact_secrets("FATAL: password \"p@ss!\" rejected", url),
            "FATAL: password \"***\" rejected");
  EXPECT_EQ(redact_secrets("bad option p%40ss! here", url), "bad option *** here");
  EXPECT_EQ(redact_secrets("nothing secret", "postgresql://ig@h/db"), "nothing secret");
  // A password that its own mask contains is replaced once, not forever.
  EXPECT_EQ(redact_secrets("password \"*\" rejected", "postgresql://ig:*@h/db"),
            "password \"***\" rejected");
}

TEST(PgUrl, AnUnreachableServerIsAnErrorNamingTheRedactedUrl) {
  auto conn = pg_connect("postgresql://ig:s3cret@/db?host=/nonexistent-infergap&port=1");
  ASSERT_FALSE(conn.ok());
  const std::string m = conn.status().message();
  EXPECT_NE(m.find("cannot connect to postgresql://ig:***@/db"), std::string::npos) << m;
  EXPECT_EQ(m.find("s3cret"), std::string::npos) << m;
}

}  // namespace
}  // namespace ig

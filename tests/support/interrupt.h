// Test helper: SIGKILL a CLI command (study, campaign: anything that must resume after a kill) at
// seeded points of its progress, one child process per kill point, and report what happened.
// Progress is read from the command's SQLite store read-only, so the harness never writes to it.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace ig::testing {

// Starts the CLI with `args` (argv without the program), its stdout and stderr sent to /dev/null.
inline pid_t spawn_cli(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>(INFERGAP_CLI)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
    execv(INFERGAP_CLI, argv.data());
    _exit(127);
  }
  return pid;
}

// One row of `sql` (e.g. "SELECT COUNT(*) FROM runs") as an integer, from `db` opened read-only;
// -1 when the file, the table or the row does not exist yet.
inline int64_t sqlite_int(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  int64_t v = -1;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(h, 2000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return v;
}

inline std::string sqlite_text(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  std::string v;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
      v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return v;
}

// A kill point: once `progress()` reaches `after` (0: right after the start), wait `jitter_ms`
// more, so that kills also land in the middle of writes, then SIGKILL.
struct KillPoint {
  int64_t after = 0;
  int jitter_ms = 0;
};

// `count` kill points at increasing progress in [0, total), drawn from `seed`; the first is always
// at the start (during start-up: store creation, model registration).
inline std::vector<KillPoint> seeded_kill_points(uint64_t seed, int count, int64_t total) {
  std::mt19937_64 rng(seed);
  std::vector<KillPoint> points;
  std::uniform_int_distribution<int64_t> at(1, std::max<int64_t>(1, total - 1));
  std::uniform_int_distribution<int> jitter(0, 30);
  points.push_back({0, jitter(rng)});
  for (int i = 1; i < count; ++i) points.push_back({at(rng), jitter(rng)});
  std::sort(points.begin() + 1, points.end(),
            [](const KillPoint& a, const KillPoint& b) { return a.after < b.after; });
  return points;
}

struct KillOutcome {
  KillPoint point;
  bool killed = false;  // died of our SIGKILL, not finished on its own
  int64_t progress_at_kill = -1;
};

// For each point: starts `args`, waits for the point, kills, reaps. A child that ends on its own
// first is reported as not killed (the caller decides whether that is acceptable).
inline std::vector<KillOutcome> run_with_kills(const std::vector<std::string>& args,
                                               const std::vector<KillPoint>& points,
                                               const std::function<int64_t()>& progress,
                                               double max_wait_seconds = 60) {
  std::vector<KillOutcome> outcomes;
  for (const auto& p : points) {
    KillOutcome o{p};
    const pid_t pid = spawn_cli(args);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(max_wait_seconds);
    int status = 0;
    bool exited = false;
    while (!exited && std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      if (p.after == 0 || progress() >= p.after) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (!exited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(p.jitter_ms));
      o.progress_at_kill = progress();
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      o.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    }
    outcomes.push_back(o);
  }
  return outcomes;
}

// Kills `args` (a command writing runs to the store `db`) at `count` points drawn from `seed` over
// `total` runs, checking after each kill that the store passes SQLite's integrity check; returns
// how many of the runs were really killed (a child may finish before its point). `left_work`, if
// given, counts the kills after which fewer than `total` runs were stored (runs are committed in
// batches, so a late point may only be reached when the last batch lands).
inline int kill_checking_integrity(const std::vector<std::string>& args, const std::string& db,
                                   uint64_t seed, int count, int64_t total,
                                   int* left_work = nullptr) {
  auto stored = [&] { return sqlite_int(db, "SELECT COUNT(*) FROM runs"); };
  std::vector<KillOutcome> outcomes;
  for (const auto& point : seeded_kill_points(seed, count, total)) {
    outcomes.push_back(run_with_kills(args, {point}, stored)[0]);
    if (left_work && outcomes.back().killed && stored() < total) ++*left_work;
  }
  int killed = 0;
  for (const auto& o : outcomes) {
    killed += o.killed;
    // The store stays consistent after every kill, not only after the final rerun.
    EXPECT_EQ(sqlite_text(db, "PRAGMA integrity_check"), "ok")
        << "after the kill at " << o.point.after;
  }
  return killed;
}

// The argv as one command line for run_cli ("study --model m ...").
inline std::string command_line(const std::vector<std::string>& args) {
  std::string line;
  for (const auto& a : args) line += (line.empty() ? "" : " ") + a;
  return line;
}

// After the kills and a final rerun: `total` runs, each key once, every stored value's tensor
// present, and SQLite's integrity check ok. (gtest assertions; call from a TEST.)
inline void expect_every_run_stored_once(const std::string& db, int64_t total) {
  EXPECT_EQ(sqlite_int(db, "SELECT COUNT(*) FROM runs"), total);
  EXPECT_EQ(sqlite_int(db,
                       "SELECT COUNT(*) FROM (SELECT DISTINCT model, input, platform, host, "
                       "repetition FROM runs)"),
            total);
  EXPECT_EQ(sqlite_int(db,
                       "SELECT COUNT(*) FROM node_outputs o WHERE NOT EXISTS (SELECT 1 FROM "
                       "tensors t WHERE t.hash = o.hash)"),
            0);
  EXPECT_EQ(sqlite_text(db, "PRAGMA integrity_check"), "ok");
}

}  // namespace ig::testing

#include "fleet/work.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include <fmt/format.h>

namespace ig {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

std::string worker_id() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::random_device rd;
  return fmt::format("{}:{}:{:08x}", host, getpid(), rd());
}

// PostgreSQL text refuses NUL bytes and invalid UTF-8; a crashing job's stderr may hold both
// (and the tail may cut a character in two).
std::string printable_utf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80         ? 1
                       : (c >> 5) == 6  ? 2
                       : (c >> 4) == 14 ? 3
                       : (c >> 3) == 30 ? 4
                                        : 0;
    bool valid = len > 0 && i + len <= s.size() && c != 0;
    for (size_t k = 1; valid && k < len; ++k)
      valid = (static_cast<unsigned char>(s[i + k]) >> 6) == 2;
    if (valid) {
      out.append(s, i, len);
      i += len;
    } else {
      out.push_back('?');
      ++i;
    }
  }
  return out;
}

std::string tail_of(const std::string& path, size_t max_bytes) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() > max_bytes) s = "..." + s.substr(s.size() - max_bytes);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return printable_utf8(s);
}

// Starts `argv` in `cwd` with stdout and stderr to files; killed when this worker dies.
Expected<pid_t> start_child(const std::vector<std::string>& argv, const std::string& cwd,
                            const std::string& out, const std::string& err) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return io_error("fork: {}", std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    setpgid(0, 0);  // its own group: a lost lease kills the job's worker processes too
    std::FILE* o = std::fopen(out.c_str(), "w");
    std::FILE* e = std::fopen(err.c_str(), "w");
    if (!o || !e || chdir(cwd.c_str()) != 0) _exit(126);
    dup2(fileno(o), 1);
    dup2(fileno(e), 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

// Job folders are named after their worker's pid: a worker removes those of workers that died
// (SIGKILL leaves its folder behind).
void remove_dead_workers_folders(const fs::path& tmp) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(tmp, ec)) {
    const std::string name = entry.path().filename().string();
    int pid = 0;
    if (!name.starts_with("infergap-job-") ||
        std::sscanf(name.c_str(), "infergap-job-%d-", &pid) != 1)
      continue;
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

struct JobOutcome {
  enum Kind { kFinished, kFailed, kLost } kind = kFailed;
  std::string detail;
  bool final = false;  // bad input (exit 2): running it again cannot help
};

// Runs the job's command, renewing the lease; kills it when the lease is lost.
JobOutcome run_job(pqxx::connection& conn, const WorkOptions& o, const std::string& worker,
                   const ClaimedJob& job, const fs::path& dir) {
  std::vector<std::string> argv = {o.executable, job.spec.command};
  argv.insert(argv.end(), job.spec.args.begin(), job.spec.args.end());
  if (!o.host_tag.empty()) {
    argv.push_back("--host-tag");
    argv.push_back(o.host_tag);
  }
  const std::string store = (dir / "job.db").string();
  for (const std::string& a : {std::string("--store"), store, std::string("--shard"),
                               fmt::format("{}/{}", job.shard, job.spec.shards),
                               std::string("--no-report"), std::string("--json")})
    argv.push_back(a);
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  auto pid = start_child(argv, job.spec.cwd, out, err);
  if (!pid.ok()) return {JobOutcome::kFailed, pid.status().message()};
  const auto renew_every = std::chrono::duration<double>(o.lease.lease_seconds / 3);
  auto last_renew = Clock::now();
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(*pid, &status, WNOHANG);
    if (r == *pid) break;
    if (r < 0 && errno != EINTR) {
      const int error = errno;
      kill(-*pid, SIGKILL);
      waitpid(*pid, &status, 0);  // reaped if it still can be
      return {JobOutcome::kFailed, fmt::format("waiting for the job: {}", std::strerror(error))};
    }
    if (Clock::now() - last_renew >= renew_every) {
      last_renew = Clock::now();
      auto held = renew_lease(conn, job.id, worker, o.lease);
      // A failed renewal (connection trouble) is not yet a lost job: completion checks again.
      if (held.ok() && !*held) {
        kill(-*pid, SIGKILL);
        kill(*pid, SIGKILL);
        waitpid(*pid, &status, 0);
        return {JobOutcome::kLost, "another worker took the job over (lease lapsed)"};
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // 0: every run ok; 1: runs stored, some with failing verdicts. Both are results.
  if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1))
    return {JobOutcome::kFinished, ""};
  const std::string how = WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                              : fmt::format("exit code {}", WEXITSTATUS(status));
  return {JobOutcome::kFailed,
          fmt::format("{} {}: {}: {}", job.spec.command, job.shard, how, tail_of(err, 2000)),
          WIFEXITED(status) && WEXITSTATUS(status) == 2};
}

}  // namespace

Expected<WorkSummary> run_worker(const WorkOptions& o,
                                 const std::function<void(const WorkEvent&)>& on_event) {
  IG_ASSIGN_OR_RETURN(auto conn, pg_connect(o.url));
  const std::string worker = worker_id();
  std::error_code tmp_ec;
  const fs::path tmp = fs::temp_directory_path(tmp_ec);
  remove_dead_workers_folders(tmp);
  WorkSummary summary;
  int64_t jobs = 0;
  while (o.max_jobs == 0 || jobs < o.max_jobs) {
    IG_ASSIGN_OR_RETURN(auto claimed, claim_job(*conn, worker, o.host, o.lease));
    if (!claimed) {
      // Jobs still running elsewhere may come back when their worker dies: wait for them.
      IG_ASSIGN_OR_RETURN(const int64_t unfinished, unfinished_jobs(*conn, o.lease));
      if (unfinished == 0) break;
      std::this_thread::sleep_for(std::chrono::duration<double>(o.poll_seconds));
      continue;
    }
    ++jobs;
    const ClaimedJob& job = *claimed;
    on_event({"claimed", job, ""});
    std::string pattern = (tmp / fmt::format("infergap-job-{}-XXXXXX", getpid())).string();
    if (!mkdtemp(pattern.data())) return io_error("{}: cannot create a job folder", pattern);
    const fs::path dir = pattern;
    // Removed however this iteration ends (an early error return included).
    const std::unique_ptr<const fs::path, void (*)(const fs::path*)> remove_dir(
        &dir, [](const fs::path* p) {
          std::error_code ignored;
          fs::remove_all(*p, ignored);
        });
    JobOutcome outcome = run_job(*conn, o, worker, job, dir);
    if (outcome.kind == JobOutcome::kFinished) {
      auto completed = complete_job(*conn, job.id, worker, (dir / "job.db").string());
      if (!completed.ok()) {
        outcome = {JobOutcome::kFailed, completed.status().message()};
      } else if (!*completed) {
        outcome = {JobOutcome::kLost, "another worker took the job over (lease lapsed)"};
      } else {
        ++summary.done;
        summary.runs_new += (*completed)->runs_new;
        summary.runs_existing += (*completed)->runs_existing;
        on_event({"done", job,
                  fmt::format("{} runs stored, {} already there", (*completed)->runs_new,
                              (*completed)->runs_existing)});
      }
    }
    if (outcome.kind == JobOutcome::kFailed) {
      ++summary.failed;
      IG_RETURN_IF_ERROR(fail_job(*conn, job.id, worker, outcome.detail, o.lease, outcome.final));
      on_event({"failed", job, outcome.detail});
    } else if (outcome.kind == JobOutcome::kLost) {
      ++summary.lost;
      on_event({"lost", job, outcome.detail});
    }
  }
  return summary;
}

}  // namespace ig

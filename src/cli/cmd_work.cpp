// infergap work --store postgresql://... [--lease S] [--max-attempts N] [--max-jobs N] [--json]
// infergap status --store postgresql://... [--json]
// A fleet worker (fleet/work.h) and the fleet's progress.
#include <unistd.h>

#include <cstdio>

#include "cli/commands.h"
#include "fleet/work.h"
#include "worker/host_fingerprint.h"

namespace ig::cli {

namespace {

std::string self_executable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : invocation().at(0);
}

}  // namespace

void add_work_command(CLI::App& app, int& exit_code) {
  struct Args {
    WorkOptions work;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "work", "Fleet worker: run jobs of the plans in a PostgreSQL store until none is left");
  cmd->add_option("--store", a->work.url, "postgresql://user[:password]@host[:port]/db")
      ->required();
  cmd->add_option("--lease", a->work.lease.lease_seconds,
                  "Seconds a job stays this worker's without renewal (renewed every third)")
      ->capture_default_str();
  cmd->add_option("--max-attempts", a->work.lease.max_attempts,
                  "Starts after which a job that never finishes is marked failed")
      ->capture_default_str();
  cmd->add_option("--max-jobs", a->work.max_jobs, "Stop after this many jobs (0: no limit)")
      ->capture_default_str();
  cmd->add_option("--poll", a->work.poll_seconds,
                  "Seconds between claims while other workers still hold jobs")
      ->capture_default_str();
  cmd->add_option("--host-tag", a->work.host_tag,
                  "Added to this host's fingerprint (and passed to its jobs), to tell apart "
                  "identical machines");
  cmd->add_flag("--json", a->json, "Print the summary as JSON");
  cmd->callback([a, &exit_code] {
    if (!is_postgres_url(a->work.url)) {
      std::fprintf(stderr, "infergap work: --store '%s': expected a postgresql:// URL\n",
                   redact_url(a->work.url).c_str());
      exit_code = kExitBadInput;
      return;
    }
    a->work.executable = self_executable();
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    a->work.host = host;  // for `status`; the runs carry the host's fingerprint
    a->work.lease.scope = probe_host(a->work.host_tag).id;
    auto summary = run_worker(a->work, [&](const WorkEvent& e) {
      std::fprintf(stderr, "work: job %lld (plan %lld, shard %lld/%d, attempt %lld) %s%s%s\n",
                   static_cast<long long>(e.job.id), static_cast<long long>(e.job.plan),
                   static_cast<long long>(e.job.shard), e.job.spec.shards,
                   static_cast<long long>(e.job.attempts), e.what.c_str(),
                   e.detail.empty() ? "" : ": ", e.detail.c_str());
    });
    if (!summary.ok()) {
      std::fprintf(stderr, "infergap work: %s\n", summary.status().message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    const nlohmann::json j{{"store", redact_url(a->work.url)},
                           {"host", a->work.host},
                           {"jobs_done", summary->done},
                           {"jobs_failed", summary->failed},
                           {"jobs_lost", summary->lost},
                           {"runs_new", summary->runs_new},
                           {"runs_existing", summary->runs_existing}};
    if (a->json) {
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf("%lld jobs done (%lld runs stored), %lld failed, %lld taken over\n",
                  static_cast<long long>(summary->done), static_cast<long long>(summary->runs_new),
                  static_cast<long long>(summary->failed), static_cast<long long>(summary->lost));
    }
    if (summary->failed > 0) exit_code = kExitFailures;
  });
}

void add_status_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string url;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("status", "A fleet's progress: jobs by state and host, rate, ETA");
  cmd->add_option("--store", a->url, "postgresql://user[:password]@host[:port]/db")->required();
  cmd->add_flag("--json", a->json, "Print as JSON");
  cmd->callback([a, &exit_code] {
    auto fail = [&](const std::string& m) {
      std::fprintf(stderr, "infergap status: %s\n", m.c_str());
      exit_code = kExitBadInput;
    };
    if (!is_postgres_url(a->url))
      return fail("--store '" + redact_url(a->url) + "': expected a postgresql:// URL");
    auto conn = pg_connect(a->url);
    if (!conn.ok()) return fail(conn.status().message());
    auto s = fleet_status(**conn);
    if (!s.ok()) return fail(s.status().message());
    if (a->json) {
      std::printf("%s\n", s->dump(2).c_str());
      return;
    }
    const auto& jobs = (*s)["jobs"];
    std::printf(
        "%s: %lld plans; jobs %lld queued, %lld running (%lld lapsed), %lld done, %lld "
        "failed; %lld runs stored\n",
        redact_url(a->url).c_str(), static_cast<long long>((*s)["plans"].get<int64_t>()),
        static_cast<long long>(jobs["queued"].get<int64_t>()),
        static_cast<long long>(jobs["running"].get<int64_t>()),
        static_cast<long long>(jobs["lapsed"].get<int64_t>()),
        static_cast<long long>(jobs["done"].get<int64_t>()),
        static_cast<long long>(jobs["failed"].get<int64_t>()),
        static_cast<long long>((*s)["runs"].get<int64_t>()));
    for (const auto& [host, h] : (*s)["hosts"].items())
      std::printf("  host %s: %lld done (%lld runs), %lld running, %lld failed\n", host.c_str(),
                  static_cast<long long>(h.value("done", int64_t{0})),
                  static_cast<long long>(h.value("runs_stored", int64_t{0})),
                  static_cast<long long>(h.value("running", int64_t{0})),
                  static_cast<long long>(h.value("failed", int64_t{0})));
    if ((*s)["jobs_per_second"].get<double>() > 0)
      std::printf("  rate %.2f jobs/s%s\n", (*s)["jobs_per_second"].get<double>(),
                  (*s)["eta_seconds"].is_null()
                      ? ""
                      : fmt::format(", ETA {:.0f} s", (*s)["eta_seconds"].get<double>()).c_str());
    for (const auto& f : (*s)["failed"])
      std::printf("  failed job %lld (plan %lld shard %lld): %s\n",
                  static_cast<long long>(f["job"].get<int64_t>()),
                  static_cast<long long>(f["plan"].get<int64_t>()),
                  static_cast<long long>(f["shard"].get<int64_t>()),
                  f["error"].get<std::string>().c_str());
    if (jobs["failed"].get<int64_t>() > 0) exit_code = kExitFailures;
  });
}

}  // namespace ig::cli

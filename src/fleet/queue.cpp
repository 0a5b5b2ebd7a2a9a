#include "fleet/queue.h"

#include <chrono>
#include <thread>

namespace ig {

namespace {

template <typename F>
auto guarded(const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    return io_error("fleet queue: {}: {}", what, e.what());
  }
}

std::string interval(double seconds) { return std::to_string(seconds) + " seconds"; }

// The job is still this worker's (with its id in the query): running, or failed only because its
// lease lapsed on the last attempt while nobody could take it over (a worker that was slow to
// renew, not dead, revives it and finishes).
constexpr const char* kStillMine =
    "(state = 'running' OR (state = 'failed' AND error LIKE '%lease lapsed%'))";

}  // namespace

Expected<int64_t> register_plan(pqxx::connection& conn, const FleetPlan& plan) {
  return guarded("registering a plan", [&]() -> Expected<int64_t> {
    if (plan.shards < 1) return invalid_argument("--shards {}: needs at least 1", plan.shards);
    pqxx::work tx(conn);
    const auto id =
        tx.exec_params1(
              "INSERT INTO fleet_plans(command, args, cwd, shards, every_host) VALUES($1, $2, "
              "$3, $4, $5) RETURNING id",
              plan.command, nlohmann::json(plan.args).dump(), plan.cwd, plan.shards,
              plan.every_host)[0]
            .as<int64_t>();
    if (!plan.every_host)
      tx.exec_params(
          "INSERT INTO fleet_jobs(plan, shard) SELECT $1, g FROM generate_series(0, $2 - 1) g", id,
          plan.shards);
    tx.commit();
    return id;
  });
}

Expected<std::optional<ClaimedJob>> claim_job(pqxx::connection& conn, const std::string& worker,
                                              const std::string& host, const LeaseOptions& lease) {
  return guarded("claiming a job", [&]() -> Expected<std::optional<ClaimedJob>> {
    pqxx::work tx(conn);
    // This host's jobs of every-host plans it has not seen yet.
    tx.exec_params(
        "INSERT INTO fleet_jobs(plan, shard, scope) SELECT p.id, g, $1 FROM fleet_plans p "
        "CROSS JOIN LATERAL generate_series(0, p.shards - 1) g WHERE p.every_host AND NOT EXISTS "
        "(SELECT 1 FROM fleet_jobs j WHERE j.plan = p.id AND j.scope = $1) "
        "ON CONFLICT (plan, shard, scope) DO NOTHING",
        lease.scope);
    // A job whose lease lapsed once too often is not handed out again: it kills its workers.
    tx.exec_params(
        "UPDATE fleet_jobs SET state = 'failed', finished = now(), error = coalesce(error, "
        "'') || 'lease lapsed ' || attempts || ' times (worker killed or cut off)' "
        "WHERE state = 'running' AND lease_until < now() AND attempts >= $1",
        lease.max_attempts);
    const pqxx::result r = tx.exec_params(
        "UPDATE fleet_jobs j SET state = 'running', worker = $1, host = $2, "
        "lease_until = now() + $3::interval, attempts = attempts + 1, started = now() "
        "FROM fleet_plans p WHERE p.id = j.plan AND j.id = (SELECT id FROM fleet_jobs "
        "WHERE (state = 'queued' OR (state = 'running' AND lease_until < now())) "
        "AND scope IN ('', $4) ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) "
        "RETURNING j.id, j.plan, j.shard, j.attempts, p.command, p.args, p.cwd, p.shards, "
        "p.every_host",
        worker, host, interval(lease.lease_seconds), lease.scope);
    tx.commit();
    if (r.empty()) return std::optional<ClaimedJob>();
    ClaimedJob job;
    job.id = r[0][0].as<int64_t>();
    job.plan = r[0][1].as<int64_t>();
    job.shard = r[0][2].as<int64_t>();
    job.attempts = r[0][3].as<int64_t>();
    job.spec.command = r[0][4].c_str();
    job.spec.args = nlohmann::json::parse(r[0][5].c_str()).get<std::vector<std::string>>();
    job.spec.cwd = r[0][6].c_str();
    job.spec.shards = r[0][7].as<int>();
    job.spec.every_host = r[0][8].as<bool>();
    return std::optional<ClaimedJob>(std::move(job));
  });
}

Expected<bool> renew_lease(pqxx::connection& conn, int64_t job, const std::string& worker,
                           const LeaseOptions& lease) {
  return guarded("renewing a lease", [&]() -> Expected<bool> {
    pqxx::work tx(conn);
    const pqxx::result r = tx.exec_params(
        "UPDATE fleet_jobs SET lease_until = now() + $3::interval, state = 'running' "
        "WHERE id = $1 AND worker = $2 AND " +
            std::string(kStillMine),
        job, worker, interval(lease.lease_seconds));
    tx.commit();
    return r.affected_rows() == 1;
  });
}

namespace {

// One attempt; a rolled-back transaction (deadlock victim, serialization failure) is thrown on.
Expected<std::optional<CopyCounts>> complete_job_once(pqxx::connection& conn, int64_t job,
                                                      const std::string& worker,
                                                      const std::string& store_path) {
  try {
    pqxx::work tx(conn);
    // The row lock keeps any other worker from claiming the job until this commits; a lapsed
    // lease that nobody took over yet still lets this worker finish.
    const pqxx::result owner =
        tx.exec_params("SELECT 1 FROM fleet_jobs WHERE id = $1 AND worker = $2 AND " +
                           std::string(kStillMine) + " FOR UPDATE",
                       job, worker);
    if (owner.empty()) return std::optional<CopyCounts>();
    IG_ASSIGN_OR_RETURN(const CopyCounts counts, pg_push(tx, store_path));
    tx.exec_params(
        "UPDATE fleet_jobs SET state = 'done', finished = now(), runs_new = $2, "
        "runs_existing = $3, error = NULL WHERE id = $1",
        job, counts.runs_new, counts.runs_existing);
    tx.commit();
    return std::optional<CopyCounts>(counts);
  } catch (const pqxx::transaction_rollback&) {
    throw;
  } catch (const std::exception& e) {
    return io_error("fleet queue: completing a job: {}", e.what());
  }
}

}  // namespace

Expected<std::optional<CopyCounts>> complete_job(pqxx::connection& conn, int64_t job,
                                                 const std::string& worker,
                                                 const std::string& store_path) {
  // Two workers pushing the same rows may still collide (PostgreSQL picks a deadlock victim);
  // the victim's transaction is rolled back whole, so it is simply run again.
  for (int attempt = 1;; ++attempt) {
    try {
      return complete_job_once(conn, job, worker, store_path);
    } catch (const pqxx::transaction_rollback& e) {
      if (attempt == 5)
        return io_error("fleet queue: completing job {}: {} (tried {} times)", job, e.what(),
                        attempt);
      std::this_thread::sleep_for(std::chrono::milliseconds(100 * attempt));
    }
  }
}

Status fail_job(pqxx::connection& conn, int64_t job, const std::string& worker,
                const std::string& error, const LeaseOptions& lease, bool final) {
  return guarded("failing a job", [&]() -> Status {
    pqxx::work tx(conn);
    const int64_t fail_at_attempts = final ? 0 : lease.max_attempts;
    tx.exec_params(
        "UPDATE fleet_jobs SET state = CASE WHEN attempts >= $4 THEN 'failed' ELSE 'queued' END, "
        "finished = CASE WHEN attempts >= $4 THEN now() END, error = $3, lease_until = NULL "
        "WHERE id = $1 AND worker = $2 AND " +
            std::string(kStillMine),  // a revived job's real error replaces "lease lapsed"
        job, worker, error, fail_at_attempts);
    tx.commit();
    return Status::Ok();
  });
}

Expected<int64_t> unfinished_jobs(pqxx::connection& conn, const LeaseOptions& lease) {
  return guarded("counting jobs", [&]() -> Expected<int64_t> {
    pqxx::work tx(conn);
    return tx
        .exec_params(
            "SELECT count(*) FROM fleet_jobs WHERE state IN ('queued', 'running') "
            "AND scope IN ('', $1)",
            lease.scope)[0][0]
        .as<int64_t>();
  });
}

Expected<nlohmann::json> fleet_status(pqxx::connection& conn) {
  return guarded("reading the queue", [&]() -> Expected<nlohmann::json> {
    pqxx::transaction<pqxx::repeatable_read, pqxx::read_only> tx(conn);
    nlohmann::json jobs = {{"queued", 0}, {"running", 0}, {"done", 0}, {"failed", 0}};
    for (const auto& row : tx.exec("SELECT state, count(*) FROM fleet_jobs GROUP BY state"))
      jobs[row[0].c_str()] = row[1].as<int64_t>();
    // Running jobs whose lease lapsed: their worker is gone; the next claim takes them.
    jobs["lapsed"] = tx.exec(
                           "SELECT count(*) FROM fleet_jobs WHERE state = 'running' AND "
                           "lease_until < now()")[0][0]
                         .as<int64_t>();
    nlohmann::json hosts = nlohmann::json::object();
    for (const auto& row :
         tx.exec("SELECT host, state, count(*), coalesce(sum(runs_new), 0) FROM fleet_jobs "
                 "WHERE host IS NOT NULL GROUP BY host, state ORDER BY host, state")) {
      auto& h = hosts[row[0].c_str()];
      h[row[1].c_str()] = row[2].as<int64_t>();
      if (std::string(row[1].c_str()) == "done") h["runs_stored"] = row[3].as<int64_t>();
    }
    const pqxx::row rate = tx.exec1(
        "SELECT count(*), coalesce(extract(epoch FROM max(finished) - min(started)), 0) "
        "FROM fleet_jobs WHERE state = 'done'");
    const double done = rate[0].as<double>(), seconds = rate[1].as<double>();
    const double per_second = seconds > 0 ? done / seconds : 0;
    const double left = jobs["queued"].get<double>() + jobs["running"].get<double>();
    nlohmann::json out{
        {"jobs", jobs},
        {"hosts", hosts},
        {"plans", tx.exec("SELECT count(*) FROM fleet_plans")[0][0].as<int64_t>()},
        {"runs", tx.exec("SELECT count(*) FROM runs")[0][0].as<int64_t>()},
        {"jobs_per_second", per_second},
        {"eta_seconds", per_second > 0 ? nlohmann::json(left / per_second) : nlohmann::json()}};
    std::vector<nlohmann::json> failed;
    for (const auto& row :
         tx.exec("SELECT id, plan, shard, coalesce(error, '') FROM fleet_jobs WHERE state = "
                 "'failed' ORDER BY id LIMIT 20"))
      failed.push_back({{"job", row[0].as<int64_t>()},
                        {"plan", row[1].as<int64_t>()},
                        {"shard", row[2].as<int64_t>()},
                        {"error", row[3].c_str()}});
    out["failed"] = failed;
    return out;
  });
}

}  // namespace ig

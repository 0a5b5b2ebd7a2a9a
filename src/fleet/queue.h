// The fleet's work queue, kept in the PostgreSQL store (store/pg_store.h): a plan is a study or
// campaign command split into shards, one job per shard. Workers on any host claim jobs with
// SELECT ... FOR UPDATE SKIP LOCKED under a lease they renew while the job runs; a job whose
// lease lapsed (its worker was killed or lost its connection) is claimed again. A job's runs are
// pushed in the same transaction that marks it done, and only by the worker that still holds it,
// so a run is stored once however often its job was started.
#pragma once

#include <pqxx/pqxx>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/pg_store.h"

namespace ig {

struct FleetPlan {
  std::string command;            // "study" or "campaign"
  std::vector<std::string> args;  // its arguments, without --store, --shard and --plan
  std::string cwd;                // where relative paths in args resolve, on every host
  int shards = 1;
  // Every job once per host fingerprint instead of once in all: each kind of machine runs every
  // case, so the same platform spec on two CPUs becomes two platforms (the papers' CPU-flag
  // classes). A worker adds its host's jobs when it first sees the plan.
  bool every_host = false;
};

// Registers the plan and its jobs in one transaction; returns the plan's id.
Expected<int64_t> register_plan(pqxx::connection& conn, const FleetPlan& plan);

struct ClaimedJob {
  int64_t id = 0, plan = 0, shard = 0, attempts = 0;
  FleetPlan spec;
};

struct LeaseOptions {
  double lease_seconds = 60;
  int max_attempts = 3;  // a job started this often without finishing is marked failed
  // The claiming host's fingerprint id: it takes the jobs of plain plans and its own jobs of
  // every-host plans.
  std::string scope;
};

// Claims the oldest job that is queued or whose lease lapsed; nullopt when none is claimable.
Expected<std::optional<ClaimedJob>> claim_job(pqxx::connection& conn, const std::string& worker,
                                              const std::string& host, const LeaseOptions& lease);
// Extends the lease; false when the job is no longer this worker's.
Expected<bool> renew_lease(pqxx::connection& conn, int64_t job, const std::string& worker,
                           const LeaseOptions& lease);
// Pushes the job's store and marks it done, in one transaction, if the job is still this
// worker's; false (nothing written) when another worker took it over.
Expected<std::optional<CopyCounts>> complete_job(pqxx::connection& conn, int64_t job,
                                                 const std::string& worker,
                                                 const std::string& store_path);
// Puts the job back in the queue, or marks it failed once it ran out of attempts or when `final`.
Status fail_job(pqxx::connection& conn, int64_t job, const std::string& worker,
                const std::string& error, const LeaseOptions& lease, bool final);
// Jobs this host could still get, queued or running (under a live or lapsed lease): workers wait
// while any remain.
Expected<int64_t> unfinished_jobs(pqxx::connection& conn, const LeaseOptions& lease);

// Jobs by state, per host (done, running, runs stored), rate and ETA.
Expected<nlohmann::json> fleet_status(pqxx::connection& conn);

}  // namespace ig

// `infergap work`: a fleet worker. Claims jobs from the queue (fleet/queue.h) until none is left,
// runs each as a child `infergap study|campaign ... --shard I/N` into a local SQLite store while
// renewing the job's lease, then pushes that store into PostgreSQL with the job's completion.
#pragma once

#include <functional>
#include <string>

#include "core/status.h"
#include "fleet/queue.h"

namespace ig {

struct WorkOptions {
  std::string url;
  std::string executable;  // the infergap CLI the jobs run with
  LeaseOptions lease;
  int max_jobs = 0;         // stop after this many jobs (0: until the queue is empty)
  double poll_seconds = 2;  // between claims while other workers still hold jobs
  std::string host;         // host name recorded on the jobs (the runs carry fingerprints)
  std::string host_tag;     // passed on to the jobs (`--host-tag`); part of lease.scope
};

struct WorkSummary {
  int64_t done = 0, failed = 0, lost = 0;  // lost: taken over by another worker meanwhile
  int64_t runs_new = 0, runs_existing = 0;
};

struct WorkEvent {
  std::string what;  // "claimed", "done", "failed", "lost"
  ClaimedJob job;
  std::string detail;
};

Expected<WorkSummary> run_worker(const WorkOptions& options,
                                 const std::function<void(const WorkEvent&)>& on_event);

}  // namespace ig

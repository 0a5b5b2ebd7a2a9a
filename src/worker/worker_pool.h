// The coordinator's handle on platforms: runs jobs, one worker process per platform (started with
// that platform's environment, reused for many jobs, restarted after a crash), so that a SIGILL,
// SIGSEGV, abort or hang in a backend becomes a verdict for that run instead of ending the study.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "results/trace_memory.h"
#include "worker/job.h"

namespace ig {

struct WorkerPoolOptions {
  // Path of the worker executable (infergap-worker). Empty: $INFERGAP_WORKER, else
  // infergap-worker next to the running executable.
  std::string worker_executable;
  // false: run jobs in this process (debugging; no crash isolation, ref only).
  bool isolate = true;
  // How long a worker may take to start and build its backend.
  double startup_timeout_seconds = 120;
};

class WorkerPool {
 public:
  explicit WorkerPool(WorkerPoolOptions options);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs one job on the worker for request.platform; never throws. Crashes and timeouts come back
  // as verdicts "crash" (reason names the signal) and "timeout", with a repro command.
  // With `memory`, the run's traced tensors are held against its budget as they arrive.
  RunResult run(const RunRequest& request, TraceMemory* memory = nullptr);

  // Starts the platform's worker if it is not running and returns whether it could build its
  // backend: an unknown backend or bad option is kInvalidArgument with the backend's message, a
  // worker that dies while starting is kInternal naming the signal.
  Status start(const std::string& platform);

  // Ends the platform's worker (if any), so the next job starts a fresh process: repetitions of a
  // study run in fresh workers, as a new process is what exposes run-to-run nondeterminism.
  void restart(const std::string& platform);

  // Process ids of running workers, by canonical spec (for tests that check reuse and restarts).
  int worker_pid(const std::string& platform) const;
  // The largest peak resident set (VmHWM) seen of each platform's workers, read after each job
  // and before a restart (a worker that crashed or was killed is not read), by canonical spec;
  // under spec + kRuntimeSuffix, that of the processes a worker started (ORT's node.js runner),
  // summed (an upper bound: see peak_rss_bytes_with_descendants).
  std::map<std::string, uint64_t> peak_rss() const;
  static constexpr const char* kRuntimeSuffix = " (runtime processes)";
  const std::string& worker_executable() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The path of the running executable (/proc/self/exe), for WorkerPoolOptions.
std::string self_executable();
// infergap-worker next to the running executable, or $INFERGAP_WORKER.
std::string default_worker_executable();

}  // namespace ig

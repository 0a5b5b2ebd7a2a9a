// One worker process: started for one platform, serving its jobs until it dies or is dropped.
// WorkerPool owns these; everything about fork/exec, the socket, stderr and reaping lives here.
#pragma once

#include <sys/types.h>

#include <string>

#include "results/trace_memory.h"
#include "worker/job.h"
#include "worker/protocol.h"

namespace ig {

class WorkerProcess {
 public:
  WorkerProcess(std::string executable, std::string platform);
  ~WorkerProcess();  // kills and reaps a live worker
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Starts the process and waits for its hello. Ok, the backend's own error (bad spec,
  // missing library), or kInternal when the worker died or hung while starting (then `died`).
  Status start(double timeout_seconds, bool* died);
  // Runs one job. A death mid-job is verdict "crash" and a missed deadline "timeout" (the worker
  // is killed); both keep the trace streamed so far. After either, alive() is false. With
  // `memory`, each traced tensor is held against its budget as it arrives (spilled past it).
  RunResult run(const RunRequest& request, TraceMemory* memory = nullptr);
  bool alive() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

 private:
  enum class Wait { kFrame, kClosed, kTimeout };
  // deadline: seconds on the steady clock (now_seconds()).
  Wait wait_frame(double deadline, wire::Frame* out);
  void read_stderr();
  // Reaps the (dying) worker and describes how it ended, e.g. "SIGSEGV: the worker died
  // (Segmentation fault) ...", with the tail of its stderr.
  std::string reap_and_describe(const std::string& when);
  void kill_and_reap();
  void close_fds();

  std::string executable_;
  std::string platform_;
  pid_t pid_ = -1;
  int sock_ = -1;
  int err_ = -1;
  std::string stderr_tail_;
};

}  // namespace ig

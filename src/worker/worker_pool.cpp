#include "worker/worker_pool.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "core/process_memory.h"
#include "platform/spec.h"
#include "worker/worker_process.h"

namespace ig {

namespace {

// One platform's worker and what is known about it. Jobs on one platform are serialised.
struct Slot {
  std::mutex mu;
  std::unique_ptr<WorkerProcess> process;
  // A backend that refused to build (bad option, missing library) refuses again: no respawn.
  Status refused;
};

}  // namespace

struct WorkerPool::Impl {
  WorkerPoolOptions options;
  mutable std::mutex mu;
  std::map<std::string, std::shared_ptr<Slot>> slots;  // by canonical spec
  std::map<std::string, uint64_t> peak_rss;            // guarded by `mu`

  // Reads a live worker's peak memory before it goes, and apart from it that of the processes it
  // started (a backend's runtime, such as ORT's node.js runner, which holds the weights too);
  // the slot's mutex is held.
  void note_peak(const Slot& s, const std::string& spec) {
    if (!s.process || !s.process->alive()) return;
    const uint64_t own = peak_rss_bytes(s.process->pid());
    const uint64_t all = peak_rss_bytes_with_descendants(s.process->pid());
    std::lock_guard lock(mu);
    peak_rss[spec] = std::max(peak_rss[spec], own);
    if (all > own) {
      uint64_t& runtime = peak_rss[spec + kRuntimeSuffix];
      runtime = std::max(runtime, all - own);
    }
  }

  std::shared_ptr<Slot> slot(const std::string& spec) {
    std::lock_guard lock(mu);
    auto& s = slots[spec];
    if (!s) s = std::make_shared<Slot>();
    return s;
  }

  // Starts the slot's worker if needed; the slot's mutex is held.
  Status ensure_started(Slot& s, const std::string& spec, bool* died) {
    *died = false;
    if (!s.refused.ok()) return s.refused;
    if (s.process && s.process->alive()) return Status::Ok();
    s.process = std::make_unique<WorkerProcess>(options.worker_executable, spec);
    Status st = s.process->start(options.startup_timeout_seconds, died);
    if (!st.ok()) {
      s.process.reset();
      if (!*died) s.refused = st;
    }
    return st;
  }
};

WorkerPool::WorkerPool(WorkerPoolOptions options) : impl_(std::make_unique<Impl>()) {
  if (options.worker_executable.empty()) options.worker_executable = default_worker_executable();
  impl_->options = std::move(options);
}

WorkerPool::~WorkerPool() = default;

const std::string& WorkerPool::worker_executable() const {
  return impl_->options.worker_executable;
}

Status WorkerPool::start(const std::string& platform) {
  if (!impl_->options.isolate) return Status::Ok();
  auto spec = parse_platform_spec(platform);
  if (!spec.ok()) return spec.status();
  const std::string name = spec->to_string();
  auto s = impl_->slot(name);
  std::lock_guard lock(s->mu);
  bool died = false;
  return impl_->ensure_started(*s, name, &died);
}

void WorkerPool::restart(const std::string& platform) {
  if (!impl_->options.isolate) return;
  auto spec = parse_platform_spec(platform);
  if (!spec.ok()) return;
  auto s = impl_->slot(spec->to_string());
  std::lock_guard lock(s->mu);
  impl_->note_peak(*s, spec->to_string());
  s->process.reset();  // the destructor kills and reaps the worker
}

RunResult WorkerPool::run(const RunRequest& request, TraceMemory* memory) {
  if (!impl_->options.isolate) {
    RunResult in_process = run_in_process(request);
    if (memory) (void)memory->hold(in_process);  // a failed spill keeps tensors in memory
    return in_process;
  }
  RunResult result;
  result.repro = repro_command(request);
  auto spec = parse_platform_spec(request.platform);
  if (!spec.ok()) {
    result.reason = spec.status().message();
    return result;
  }
  const std::string name = spec->to_string();
  auto s = impl_->slot(name);
  std::lock_guard lock(s->mu);
  bool died = false;
  Status st = impl_->ensure_started(*s, name, &died);
  if (!st.ok()) {
    result.verdict = died ? Verdict::kCrash : verdict_for(st);
    result.reason = st.message();
    return result;
  }
  RunRequest job = request;
  job.platform = name;
  result = s->process->run(job, memory);
  result.repro = repro_command(request);
  impl_->note_peak(*s, name);
  // A crashed or killed worker is gone; the next job on this platform starts a fresh one.
  if (!s->process->alive()) s->process.reset();
  return result;
}

int WorkerPool::worker_pid(const std::string& platform) const {
  auto spec = parse_platform_spec(platform);
  if (!spec.ok()) return -1;
  std::shared_ptr<Slot> s;
  {
    std::lock_guard lock(impl_->mu);
    auto it = impl_->slots.find(spec->to_string());
    if (it == impl_->slots.end()) return -1;
    s = it->second;
  }
  std::lock_guard lock(s->mu);
  return s->process && s->process->alive() ? s->process->pid() : -1;
}

std::map<std::string, uint64_t> WorkerPool::peak_rss() const {
  std::lock_guard lock(impl_->mu);
  return impl_->peak_rss;
}

std::string self_executable() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "infergap";
  return std::string(buf, static_cast<size_t>(n));
}

std::string default_worker_executable() {
  if (const char* env = std::getenv("INFERGAP_WORKER"); env && *env) return env;
  return (std::filesystem::path(self_executable()).parent_path() / "infergap-worker").string();
}

}  // namespace ig

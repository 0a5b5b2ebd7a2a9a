// Host probing: which known platforms run on this machine. Each candidate is tried for real (its
// worker starts with its environment and runs a tiny CNN); a platform that dies, e.g. an OpenBLAS
// core type that needs instructions this CPU lacks, is recorded as unavailable with the reason.
// Results are cached per host fingerprint and worker build.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "platform/catalog.h"
#include "results/verdict.h"
#include "worker/worker_pool.h"

namespace ig {

// Asks the worker executable what it knows (`infergap-worker --catalog`).
Expected<Catalog> read_catalog(const std::string& worker_executable);

struct PlatformStatus {
  std::string spec;
  std::string backend;
  bool available = false;
  Verdict verdict = Verdict::kError;  // of the probe run
  std::string reason;                 // why not available ("" when available)
  double seconds = 0;
  bool cached = false;
  std::string library;  // the library the platform runs and its version (RunResult's)
  std::string version;
};

struct ProbeOptions {
  std::string cache_dir;  // empty: default_cache_dir()
  bool refresh = false;   // ignore cached results
  double timeout_seconds = 60;
  std::function<void(size_t done, size_t total, const std::string& spec)> progress;
};

std::vector<PlatformStatus> probe_platforms(WorkerPool& pool, const std::vector<std::string>& specs,
                                            const ProbeOptions& options);

// CPU model, flags, core count and kernel: what decides which code paths can run here.
std::string host_fingerprint();

// The probe's model: Conv 3x3 -> Relu -> Conv 3x3 on float[1,4,8,8], fixed weights, and its input.
Status write_probe_model(const std::string& path);
std::map<std::string, Tensor> probe_inputs();

}  // namespace ig

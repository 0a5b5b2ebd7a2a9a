// What `infergap run` does: load the model and gather its inputs, start one worker per platform
// (a platform the worker cannot build is a usage error), run each (a crash, a refusal or a timeout
// is that platform's verdict), save its outputs on request, and group the platforms whose outputs
// are bitwise identical.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "inputs/inputs.h"
#include "results/run_result.h"
#include "worker/worker_pool.h"

namespace ig {

struct RunModelRequest {
  std::string model;
  InputRequest inputs;
  std::vector<std::string> platforms;  // "ref" when empty
  std::string save_dir;                // "": outputs are not written
  bool in_process = false;             // ref only: no worker process, no crash isolation
  double timeout_seconds = 300;
  uint64_t max_memory_bytes = 0;
};

struct PlatformRun {
  std::string spec;
  RunResult result;
  int group = -1;        // index into RunModelOutcome::groups; -1 when it did not run ok
  std::string combined;  // the output hashes one after another (its group's key)
};

struct RunModelOutcome {
  std::vector<NamedInput> inputs;
  std::vector<PlatformRun> platforms;            // in the order given
  std::vector<std::vector<std::string>> groups;  // specs with bitwise-identical outputs
  bool all_ok() const;
};

struct RunModelHooks {
  std::function<void(const std::vector<NamedInput>&)> inputs_ready;  // before any platform runs
  std::function<void(const PlatformRun&)> platform_done;             // as each one finishes
};

// A spec or value name as one file name: characters other than letters, digits and -_.= become _
// (`run --save-outputs` DIR/SPEC/VALUE.npy, generate's step files).
std::string file_name_part(const std::string& s);

// The canonical specs of `platforms` ("ref" when none is given); a malformed one is an error.
Expected<std::vector<std::string>> platform_specs_or_ref(const std::vector<std::string>& platforms);

// Starts each platform's worker: one it cannot build (an unknown backend or option) is a usage
// error; one that fails to start for another reason is left to fail its runs, as a verdict.
Status start_platforms(WorkerPool& pool, const std::vector<std::string>& specs);

Expected<RunModelOutcome> run_model_on_platforms(const RunModelRequest& request,
                                                 const RunModelHooks& hooks);

}  // namespace ig

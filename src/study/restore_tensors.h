// Re-creates the tensors a --keep-tensors origins or none study dropped (docs/STUDY.md "Keeping
// tensors"), when something reads one: a run that traced it is run again on this host, every
// value the run stored must come back bit for bit (its hashes), and the run's dropped tensors get
// their bytes back in the store. What cannot be re-created (the runs were made on another host,
// the model file changed, the platform gives other bits now) keeps saying it was not kept, and why.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "store/store.h"

namespace ig {

struct RestoreOptions {
  double timeout_seconds = 300;   // per re-run
  uint64_t max_memory_bytes = 0;  // model/limits.h; 0: default_memory_budget()
  // Told before each re-run and after it ("" for none): the command's progress on stderr.
  std::function<void(const std::string&)> note;
};

// Installs the restorer on `store` (Store::set_tensor_restorer). Its worker processes start on
// the first re-run and end with the store.
void restore_dropped_tensors(Store& store, RestoreOptions options = {});
// The notes of `command`'s restorer, on stderr: "infergap COMMAND: ...".
RestoreOptions restore_notes_on_stderr(const std::string& command);
// open_existing_store with the restorer installed, noting on stderr.
Expected<std::unique_ptr<Store>> open_store_restoring(const std::string& path,
                                                      const std::string& command);

}  // namespace ig

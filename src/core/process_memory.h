// What a process knows of its memory: the peak resident set of a process, and the trace budget a
// worker was last given (RunRequest::trace_budget_bytes), for a backend that bounds what it holds.
#pragma once

#include <cstdint>

namespace ig {

// VmHWM of /proc/<pid>/status in bytes (pid 0: this process); 0 where it cannot be read (another
// OS, a process already gone).
uint64_t peak_rss_bytes(int pid = 0);

// Process-wide; 0 (the initial value): no budget was given.
void set_trace_budget_bytes(uint64_t bytes);
uint64_t trace_budget_bytes();

}  // namespace ig

// What a process knows of its memory: the peak resident set of a process, and the trace budget a
// worker was last given (RunRequest::trace_budget_bytes), for a backend that bounds what it holds.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ig {

// VmHWM of /proc/<pid>/status in bytes (pid 0: this process); 0 where it cannot be read (another
// OS, a process already gone).
uint64_t peak_rss_bytes(int pid = 0);

// peak_rss_bytes of `pid` plus that of each of its live descendants (found through
// /proc/<pid>/task/*/children): a backend's runtime child (ORT's node.js runner) holds the model's
// weights too. Each process peaked at its own moment, so the sum is an upper bound of their peak
// together; a descendant that already exited is not counted.
uint64_t peak_rss_bytes_with_descendants(int pid);

// Makes the allocator give large freed blocks (a tensor's bytes) back to the system at once. By
// default glibc raises its mmap threshold after the first large free and then keeps freed tensors
// in its heaps: a study's coordinator at a 16 MiB trace budget peaked at 363 MB instead of 163 MB.
// `threshold`: blocks from that size on are mapped alone. A worker uses a larger one (values of a
// few MB come and go per node, and mapping each anew costs page faults on every run).
void return_freed_tensors_to_the_system(size_t threshold = size_t{256} << 10);

// Process-wide; 0 (the initial value): no budget was given.
void set_trace_budget_bytes(uint64_t bytes);
uint64_t trace_budget_bytes();

}  // namespace ig

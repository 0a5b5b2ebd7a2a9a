#include "core/process_memory.h"

#include <malloc.h>

#include <atomic>
#include <charconv>
#include <fstream>
#include <string>

namespace ig {

namespace {
std::atomic<uint64_t> g_trace_budget_bytes{0};
}  // namespace

uint64_t peak_rss_bytes(int pid) {
  std::ifstream f(pid > 0 ? "/proc/" + std::to_string(pid) + "/status" : "/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    // "VmHWM:    123456 kB"
    const size_t digits = line.find_first_of("0123456789");
    uint64_t kb = 0;
    if (digits == std::string::npos) return 0;
    std::from_chars(line.data() + digits, line.data() + line.size(), kb);
    return kb * 1024;
  }
  return 0;
}

void return_freed_tensors_to_the_system() {
#ifdef M_MMAP_THRESHOLD
  // Setting it also stops the raise: blocks of 256 KiB and more are mapped alone, unmapped when
  // freed.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

void set_trace_budget_bytes(uint64_t bytes) { g_trace_budget_bytes = bytes; }
uint64_t trace_budget_bytes() { return g_trace_budget_bytes; }

}  // namespace ig

#include "core/process_memory.h"

#include <malloc.h>

#include <atomic>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

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

uint64_t peak_rss_bytes_with_descendants(int pid) {
  std::set<int> seen{pid};
  std::vector<int> todo{pid};
  uint64_t total = 0;
  while (!todo.empty()) {
    const int p = todo.back();
    todo.pop_back();
    total += peak_rss_bytes(p);
    std::error_code ec;
    const std::filesystem::path tasks = "/proc/" + std::to_string(p) + "/task";
    // A process that exits meanwhile ends the walk below it, without an exception.
    for (std::filesystem::directory_iterator it(tasks, ec), end; !ec && it != end;
         it.increment(ec)) {
      std::ifstream children(it->path() / "children");
      int child = 0;
      while (children >> child)
        if (seen.insert(child).second) todo.push_back(child);
    }
  }
  return total;
}

void return_freed_tensors_to_the_system(size_t threshold) {
#ifdef M_MMAP_THRESHOLD
  // Setting it also stops the raise: blocks of 256 KiB and more are mapped alone, unmapped when
  // freed.
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(threshold));
#endif
#ifdef M_TRIM_THRESHOLD
  // Fixing the mmap threshold also fixes the trim threshold at 128 KiB: the heap's top would be
  // given back and faulted in again around every value of a few MB.
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(4 * threshold));
#endif
}

void set_trace_budget_bytes(uint64_t bytes) { g_trace_budget_bytes = bytes; }
uint64_t trace_budget_bytes() { return g_trace_budget_bytes; }

}  // namespace ig

// peak_rss_bytes_with_descendants: a worker's peak includes the processes it started (ORT's
// node.js runner holds the model's weights), so a study's peak_rss does not hide them.
#include "core/process_memory.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace ig {
namespace {

constexpr size_t kChildBytes = 64u << 20;

// Forks a child (and, under it, a grandchild) that each touch kChildBytes, then wait to be killed.
pid_t fork_hungry_child(int ready_fd) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  (void)::fork();  // the grandchild: both run the code below
  char* p = static_cast<char*>(std::malloc(kChildBytes));
  std::memset(p, 1, kChildBytes);
  // The pages must stay touched: a buffer nothing reads lets the optimiser drop malloc and memset
  // (it did in a unity build). The empty asm "reads" all memory through p.
  asm volatile("" : : "r"(p) : "memory");
  const char c = 1;
  if (::write(ready_fd, &c, 1) != 1) ::_exit(1);
  ::pause();
  ::_exit(0);
}

TEST(ProcessMemory, APeakWithDescendantsCountsChildAndGrandchild) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = fork_hungry_child(fds[1]);
  ASSERT_GT(child, 0);
  char c[2];
  ASSERT_EQ(::read(fds[0], &c[0], 1), 1);
  ASSERT_EQ(::read(fds[0], &c[1], 1), 1);
  const uint64_t alone = peak_rss_bytes(child);
  const uint64_t with_grandchild = peak_rss_bytes_with_descendants(child);
  const uint64_t self = peak_rss_bytes();  // read first: a peak only grows
  const uint64_t with_all = peak_rss_bytes_with_descendants(::getpid());
  // The grandchild is the child's only child: read it the same way to kill it afterwards.
  std::ifstream children("/proc/" + std::to_string(child) + "/task/" + std::to_string(child) +
                         "/children");
  pid_t grandchild = 0;
  children >> grandchild;
  if (grandchild > 0) ::kill(grandchild, SIGKILL);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(fds[0]);
  ::close(fds[1]);
  EXPECT_GE(alone, kChildBytes);
  EXPECT_GT(grandchild, 0);
  EXPECT_GE(with_grandchild, alone + kChildBytes);
  EXPECT_GE(with_all, self + with_grandchild);
}

TEST(ProcessMemory, AProcessThatIsGoneCountsNothing) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  EXPECT_EQ(peak_rss_bytes_with_descendants(pid), 0u);
}

}  // namespace
}  // namespace ig

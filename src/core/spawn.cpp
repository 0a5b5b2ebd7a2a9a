#include "core/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace ig {

Expected<SpawnedChild> spawn_with_socket(const std::vector<std::string>& args, bool capture_stderr,
                                         int shared_fd) {
  int sv[2], ep[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return internal_error("socketpair: {}", std::strerror(errno));
  if (capture_stderr && ::pipe2(ep, O_CLOEXEC) != 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    return internal_error("pipe: {}", std::strerror(errno));
  }
  auto close_all = [&] {
    for (int fd : {sv[0], sv[1], ep[0], ep[1]})
      if (fd >= 0) ::close(fd);
  };
  // Everything the child needs is built before fork: after it only async-signal-safe calls.
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    close_all();
    return internal_error("fork: {}", std::strerror(errno));
  }
  if (pid == 0) {
    // A child must not outlive its parent (a hung one would run forever).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    // Move both ends above 9 first, so the dup2s below cannot clobber one another.
    const int s = ::fcntl(sv[1], F_DUPFD, 10);
    const int e = capture_stderr ? ::fcntl(ep[1], F_DUPFD, 10) : ::fcntl(2, F_DUPFD, 10);
    const int devnull = ::open("/dev/null", O_RDONLY);
    const int shared = shared_fd >= 0 ? ::fcntl(shared_fd, F_DUPFD, 10) : -1;
    if (s < 0 || e < 0 || devnull < 0 || (shared_fd >= 0 && shared < 0)) ::_exit(126);
    ::dup2(devnull, 0);
    ::dup2(e, 1);
    ::dup2(e, 2);
    ::dup2(s, 3);
    ::close(s);
    if (shared >= 0) {
      ::dup2(shared, 4);
      ::close(shared);
    }
    ::close(e);
    ::close(devnull);
    ::signal(SIGPIPE, SIG_DFL);
    ::execv(argv[0], argv.data());
    const char msg[] = "spawn: exec failed\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(sv[1]);
  if (ep[1] >= 0) ::close(ep[1]);
  SpawnedChild child;
  child.pid = pid;
  child.sock = sv[0];
  child.stderr_fd = ep[0];
  if (child.stderr_fd >= 0)
    ::fcntl(child.stderr_fd, F_SETFL, ::fcntl(child.stderr_fd, F_GETFL) | O_NONBLOCK);
  return child;
}

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace ig

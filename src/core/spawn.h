// Starting a helper process that talks over a socket on its fd 3: infergap-worker processes and
// the ort backend's node runner. stdout is sent to stderr (libraries print there), stdin is
// /dev/null, and the child is killed when its parent dies.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

struct SpawnedChild {
  pid_t pid = -1;
  int sock = -1;       // our end of the socket; the child's is its fd 3
  int stderr_fd = -1;  // read end of the child's stderr (non-blocking), when captured
};

// argv[0] is the executable's path. capture_stderr: pipe the child's stderr to us; otherwise it
// shares ours. shared_fd, when given, is also the child's fd 4 (a memory file both sides use).
Expected<SpawnedChild> spawn_with_socket(const std::vector<std::string>& argv, bool capture_stderr,
                                         int shared_fd = -1);

// Finds an executable on $PATH ("" when none).
std::string find_on_path(const std::string& name);

}  // namespace ig

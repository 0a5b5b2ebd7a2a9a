#include "core/venv.h"

#include <cstdlib>

// CMakeLists.txt sets this to the source tree; a build without it (fuzz/) has no venv.
#ifndef INFERGAP_SOURCE_ROOT
#define INFERGAP_SOURCE_ROOT ""
#endif

namespace ig {

std::string venv_python() {
  if (const char* env = std::getenv("INFERGAP_PYTHON"); env && *env) return env;
  return std::string(INFERGAP_SOURCE_ROOT) + "/.venv/bin/python";
}

std::string source_file(const std::string& relative) {
  return std::string(INFERGAP_SOURCE_ROOT) + "/" + relative;
}

}  // namespace ig

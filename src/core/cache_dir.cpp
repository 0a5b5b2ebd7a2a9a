#include "core/cache_dir.h"

#include <cstdlib>

namespace ig {

std::string default_cache_dir() {
  if (const char* d = std::getenv("INFERGAP_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/infergap";
  if (const char* d = std::getenv("HOME"); d && *d) return std::string(d) + "/.cache/infergap";
  return "/tmp/infergap-cache";
}

}  // namespace ig

// Where infergap keeps what it can make again but would rather not: the host probe's results and
// the deep-learning compilers' compiled models.
#pragma once

#include <string>

namespace ig {

// $INFERGAP_CACHE_DIR, else $XDG_CACHE_HOME/infergap, else ~/.cache/infergap.
std::string default_cache_dir();

}  // namespace ig

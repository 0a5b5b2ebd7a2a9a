// Small string helpers shared by messages across layers.
#pragma once

#include <string>
#include <vector>

namespace ig {

// "a, b, c": the names a message lists as valid.
std::string join_names(const std::vector<std::string>& names);

}  // namespace ig

// Small string helpers shared by messages across layers.
#pragma once

#include <string>
#include <vector>

namespace ig {

// "a, b, c": the names a message lists as valid.
std::string join_names(const std::vector<std::string>& names);
// `text` as one shell word: unchanged when it is plainly safe, else single-quoted (repro lines).
std::string shell_quote(const std::string& text);

}  // namespace ig

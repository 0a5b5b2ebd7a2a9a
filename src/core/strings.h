// Small string helpers shared by messages across layers.
#pragma once

#include <string>
#include <vector>

namespace ig {

// "a, b, c": the names a message lists as valid.
std::string join_names(const std::vector<std::string>& names);
// Whether two paths name one file as written (absolute, lexically normal; links not followed).
bool same_path(const std::string& a, const std::string& b);
// `text` as one shell word: unchanged when it is plainly safe, else single-quoted (repro lines).
std::string shell_quote(const std::string& text);

}  // namespace ig

#include "core/strings.h"

#include <cctype>
#include <filesystem>
#include <string_view>

namespace ig {

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string shell_quote(const std::string& text) {
  bool plain = !text.empty();
  for (unsigned char c : text)
    plain = plain &&
            (std::isalnum(c) ||
             std::string_view("_-./:=,@%+").find(static_cast<char>(c)) != std::string_view::npos);
  if (plain) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool same_path(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  return fs::absolute(a).lexically_normal() == fs::absolute(b).lexically_normal();
}

}  // namespace ig

#include "platform/spec.h"

namespace ig {

std::string PlatformSpec::to_string() const {
  std::string s = backend;
  char sep = ':';
  for (const auto& [k, v] : options) {
    s += sep + k + "=" + v;
    sep = ',';
  }
  return s;
}

Expected<PlatformSpec> parse_platform_spec(const std::string& text) {
  PlatformSpec spec;
  const auto colon = text.find(':');
  spec.backend = text.substr(0, colon);
  if (spec.backend.empty()) return invalid_argument("platform spec '{}' has no backend name", text);
  if (colon == std::string::npos) return spec;
  std::string rest = text.substr(colon + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    const size_t comma = rest.find(',', pos);
    const std::string item =
        rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty()) {
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
        return invalid_argument("platform spec '{}': '{}' is not key=value", text, item);
      }
      const std::string key = item.substr(0, eq);
      if (spec.options.count(key))
        return invalid_argument("platform spec '{}': key '{}' given twice", text, key);
      spec.options[key] = item.substr(eq + 1);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return spec;
}

std::string canonical_platform_label(const std::string& text) {
  auto spec = parse_platform_spec(text);
  return spec.ok() ? spec->to_string() : text;
}

}  // namespace ig

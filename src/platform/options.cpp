#include "platform/options.h"

#include <algorithm>
#include <charconv>

#include "platform/spec.h"

namespace ig {

Status check_option_keys(const PlatformSpec& spec, const std::vector<std::string>& keys) {
  for (const auto& [key, value] : spec.options) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return invalid_argument("platform '{}': unknown key '{}' (valid keys: {})", spec.to_string(),
                              key, join_names(keys));
    }
  }
  return Status::Ok();
}

Expected<std::string> choice_option(const PlatformSpec& spec, const std::string& key,
                                    const std::string& fallback,
                                    const std::vector<std::string>& allowed) {
  auto it = spec.options.find(key);
  if (it == spec.options.end()) return fallback;
  if (std::find(allowed.begin(), allowed.end(), it->second) == allowed.end()) {
    return invalid_argument("platform '{}': {}={} is not valid (valid values: {})",
                            spec.to_string(), key, it->second, join_names(allowed));
  }
  return it->second;
}

Expected<int> int_option(const PlatformSpec& spec, const std::string& key, int fallback, int lo,
                         int hi) {
  auto it = spec.options.find(key);
  if (it == spec.options.end()) return fallback;
  const std::string& s = it->second;
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) {
    return invalid_argument("platform '{}': {}={} is not valid (an integer from {} to {})",
                            spec.to_string(), key, s, lo, hi);
  }
  return v;
}

Status check_option_keys(const PlatformSpec& spec, const KnobTable& table) {
  return check_option_keys(spec, knob_keys(table));
}

namespace {

Expected<const Knob*> declared(const PlatformSpec& spec, const KnobTable& table,
                               const std::string& key) {
  if (const Knob* k = find_knob(table, key)) return k;
  return internal_error("platform '{}': the knob table of '{}' does not declare '{}'",
                        spec.to_string(), spec.backend, key);
}

}  // namespace

Expected<std::string> choice_option(const PlatformSpec& spec, const KnobTable& table,
                                    const std::string& key) {
  IG_ASSIGN_OR_RETURN(const Knob* knob, declared(spec, table, key));
  return choice_option(spec, key, knob->default_value, knob->values);
}

Expected<int> int_option(const PlatformSpec& spec, const KnobTable& table, const std::string& key) {
  IG_ASSIGN_OR_RETURN(const Knob* knob, declared(spec, table, key));
  if (knob->min >= knob->max)
    return internal_error("platform '{}': knob '{}' has no integer bounds", spec.to_string(), key);
  int fallback = 0;
  const std::string& d = knob->default_value;
  auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), fallback);
  if (ec != std::errc() || end != d.data() + d.size())
    return internal_error("platform '{}': knob '{}' has no integer default", spec.to_string(), key);
  return int_option(spec, key, fallback, knob->min, knob->max);
}

}  // namespace ig

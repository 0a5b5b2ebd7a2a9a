// Reading a platform spec's options with errors that list what is valid (every backend factory
// validates its knobs the same way).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "core/strings.h"
#include "platform/knobs.h"

namespace ig {

struct PlatformSpec;

// Error naming the first key of `spec` that is not in `keys`, listing the valid ones.
Status check_option_keys(const PlatformSpec& spec, const std::vector<std::string>& keys);
// The value of `key` (or `fallback` when absent), which must be one of `allowed`.
Expected<std::string> choice_option(const PlatformSpec& spec, const std::string& key,
                                    const std::string& fallback,
                                    const std::vector<std::string>& allowed);
// The value of `key` as an integer in [lo, hi] (or `fallback` when absent).
Expected<int> int_option(const PlatformSpec& spec, const std::string& key, int fallback, int lo,
                         int hi);

// The same, with the keys, defaults and legal values the backend's knob table declares
// (platform/knobs.h), so that each is written once. A key the table lacks is an internal error
// naming it.
Status check_option_keys(const PlatformSpec& spec, const KnobTable& table);
Expected<std::string> choice_option(const PlatformSpec& spec, const KnobTable& table,
                                    const std::string& key);
Expected<int> int_option(const PlatformSpec& spec, const KnobTable& table, const std::string& key);

}  // namespace ig

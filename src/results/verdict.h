// The verdict of one run (DESIGN "Words"): a closed enum with a name table guarded by its size, so
// a verdict is compared as a value and spelled the same everywhere it is shown or stored.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

#include "core/enum_names.h"
#include "core/status.h"

namespace ig {

enum class Verdict : uint8_t {
  kOk,
  kUnsupported,  // a node the platform cannot run (Rejection says which and why)
  kLoadError,    // the model did not load or check
  kCrash,        // the worker died (signal or exit)
  kTimeout,      // the worker was killed past the run's deadline
  kError,        // anything else that failed (bad input, an internal error)
  kCount
};

inline constexpr auto kVerdictNames = std::to_array<std::string_view>(
    {"ok", "unsupported", "load-error", "crash", "timeout", "error"});
static_assert(names_cover_enum<Verdict>(kVerdictNames), "one distinct name per verdict");

// "ok", "unsupported", ... as stored and printed.
std::string_view verdict_name(Verdict v);
// The verdict a name spells; nullopt for any other text (a store of another version, a typo).
std::optional<Verdict> verdict_from_name(std::string_view name);
// The verdict for a failure Status: unsupported for kUnsupported, error otherwise.
Verdict verdict_for(const Status& st);
inline std::ostream& operator<<(std::ostream& os, Verdict v) { return os << verdict_name(v); }

}  // namespace ig

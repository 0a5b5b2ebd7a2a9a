// Platform spec strings: `backend:key=value,...` (see DESIGN.md, "Words").
#pragma once

#include <map>
#include <string>

#include "core/status.h"

namespace ig {

struct PlatformSpec {
  std::string backend;
  std::map<std::string, std::string> options;  // sorted, so to_string() is canonical
  std::string to_string() const;
};

Expected<PlatformSpec> parse_platform_spec(const std::string& text);
// The label a study stores for `text` (options sorted: `onednn:isa=avx2,fallback=ref` is
// `onednn:fallback=ref,isa=avx2`); `text` itself where it does not parse.
std::string canonical_platform_label(const std::string& text);

}  // namespace ig

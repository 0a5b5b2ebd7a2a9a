// infergap's own version: what `infergap --version` prints and what the reference backend reports
// as its library's version.
#pragma once

namespace ig {

inline constexpr const char* kInfergapVersion = "0.1.0";

}  // namespace ig

// A measure (SQNR, error, rate, headroom) as JSON, which has no infinity: +-infinity as "inf" and
// "-inf", NaN (nothing measured, or a NaN result) as null. The one convention of every JSON
// output (docs/FORMATS.md, "Numbers"); nlohmann writes a bare non-finite double as null too.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>

namespace ig {

inline nlohmann::json json_measure(double x) {
  if (std::isnan(x)) return nullptr;
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

}  // namespace ig

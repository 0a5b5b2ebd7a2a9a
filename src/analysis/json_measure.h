// A measure (SQNR, error, rate, headroom) as JSON, which has no infinity: +-infinity as "inf" and
// "-inf", NaN (nothing measured) as null.
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

#include "results/verdict.h"

namespace ig {

std::string_view verdict_name(Verdict v) {
  const auto i = static_cast<size_t>(v);
  return i < kVerdictNames.size() ? kVerdictNames[i] : "invalid";
}

std::optional<Verdict> verdict_from_name(std::string_view name) {
  for (size_t i = 0; i < kVerdictNames.size(); ++i)
    if (kVerdictNames[i] == name) return static_cast<Verdict>(i);
  return std::nullopt;
}

Verdict verdict_for(const Status& st) {
  return st.code() == StatusCode::kUnsupported ? Verdict::kUnsupported : Verdict::kError;
}

}  // namespace ig

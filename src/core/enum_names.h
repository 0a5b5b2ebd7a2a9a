// Name tables of closed enums, checked at compile time (STYLE "Guards that can fail"). Declare the
// table with std::to_array so its size comes from the names written, not from the enum's count,
// then guard it:
//
//   inline constexpr auto kVerdictNames = std::to_array<std::string_view>({"ok", ...});
//   static_assert(names_cover_enum<Verdict>(kVerdictNames));
//
// A table sized by the enum (std::array<..., kCount>) always has kCount entries: a missing name
// becomes an empty one and a size check on it cannot fail. These checks can.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

namespace ig {

// The number of values of an enum whose last enumerator is kCount.
template <class E>
requires std::is_enum_v<E> && requires { E::kCount; }
inline constexpr size_t enum_count = static_cast<size_t>(E::kCount);

// A name as printed, stored and parsed back: at least one character, none of them whitespace or
// control characters (a name with a space or a newline does not survive a command line or a
// line-oriented file).
constexpr bool is_name_token(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return false;
  }
  return true;
}

namespace detail {
constexpr std::string_view name_view(std::string_view s) { return s; }
constexpr std::string_view name_view(const char* s) {
  return s == nullptr ? std::string_view() : std::string_view(s);
}
}  // namespace detail

// `names` has exactly `count` entries, each a name token, no two alike: names[i] can name value i
// of an enum of `count` values and be parsed back to it.
template <class S, size_t N>
constexpr bool names_cover(const std::array<S, N>& names, size_t count) {
  if (N != count) return false;
  for (size_t i = 0; i < N; ++i) {
    const std::string_view a = detail::name_view(names[i]);
    if (!is_name_token(a)) return false;
    for (size_t j = 0; j < i; ++j)
      if (detail::name_view(names[j]) == a) return false;
  }
  return true;
}

// names_cover for an enum ending in kCount: one distinct name per value, in the enum's order.
template <class E, class S, size_t N>
constexpr bool names_cover_enum(const std::array<S, N>& names) {
  return names_cover(names, enum_count<E>);
}

}  // namespace ig

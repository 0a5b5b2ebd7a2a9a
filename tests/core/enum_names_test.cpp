#include <gtest/gtest.h>

#include <array>
#include <string_view>

#include "core/enum_names.h"

namespace ig {
namespace {

enum class Color { kRed, kGreen, kBlue, kCount };

constexpr auto kGood = std::to_array<std::string_view>({"red", "green", "blue"});
static_assert(enum_count<Color> == 3);
static_assert(names_cover_enum<Color>(kGood));
static_assert(names_cover_enum<Color>(std::to_array<const char*>({"red", "green", "blue"})));
static_assert(names_cover(kGood, 3));

// Each bad table is judged at compile time (constexpr), and the verdict is checked as a test, so
// a checker that accepted one fails here by name instead of breaking the build.
TEST(EnumNames, RejectsATableWithTooFewNames) {
  constexpr bool ok = names_cover_enum<Color>(std::to_array<std::string_view>({"red", "green"}));
  EXPECT_FALSE(ok);
}

TEST(EnumNames, RejectsATableWithTooManyNames) {
  constexpr bool ok =
      names_cover_enum<Color>(std::to_array<std::string_view>({"red", "green", "blue", "cyan"}));
  EXPECT_FALSE(ok);
}

TEST(EnumNames, RejectsAnEmptyName) {
  constexpr bool ok = names_cover_enum<Color>(std::to_array<std::string_view>({"red", "", "blue"}));
  EXPECT_FALSE(ok);
  constexpr bool null_name =
      names_cover_enum<Color>(std::to_array<const char*>({"red", nullptr, "blue"}));
  EXPECT_FALSE(null_name);
}

TEST(EnumNames, RejectsADuplicateName) {
  constexpr bool ok =
      names_cover_enum<Color>(std::to_array<std::string_view>({"red", "green", "red"}));
  EXPECT_FALSE(ok);
  constexpr bool adjacent =
      names_cover_enum<Color>(std::to_array<const char*>({"red", "blue", "blue"}));
  EXPECT_FALSE(adjacent);
}

TEST(EnumNames, RejectsANameThatIsNotOneToken) {
  constexpr bool space =
      names_cover_enum<Color>(std::to_array<std::string_view>({"red", "dark green", "blue"}));
  EXPECT_FALSE(space);
  constexpr bool newline =
      names_cover_enum<Color>(std::to_array<std::string_view>({"red", "green\n", "blue"}));
  EXPECT_FALSE(newline);
  EXPECT_TRUE(is_name_token("load-error"));
  EXPECT_FALSE(is_name_token(std::string_view("a\0b", 3)));
}

TEST(EnumNames, RejectsATableForAnotherCount) {
  constexpr bool ok = names_cover(kGood, 4);
  EXPECT_FALSE(ok);
}

}  // namespace
}  // namespace ig

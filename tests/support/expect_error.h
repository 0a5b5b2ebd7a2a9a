// Test helper: a failed Status whose message holds every fragment.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "core/status.h"

namespace ig::testing {

inline void expect_error(const Status& st, std::initializer_list<std::string> fragments) {
  ASSERT_FALSE(st.ok());
  for (const auto& f : fragments)
    EXPECT_NE(st.message().find(f), std::string::npos) << "missing '" << f << "' in\n"
                                                       << st.message();
}

}  // namespace ig::testing

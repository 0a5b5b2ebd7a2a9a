// Shared by the libFuzzer targets: small limits, so that a declared size is refused by our checks
// rather than by the sanitizer's allocation limit, and a check that fails like a crash.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/status.h"
#include "tensor/tensor.h"

namespace ig::fuzz {

// Small enough that ASan's default 2 GiB allocation limit and -rss_limit_mb are never reached.
inline constexpr uint64_t kBudget = uint64_t{64} << 20;

inline bool init() {
  set_tensor_byte_limit(kBudget);
  return true;
}

inline std::string bytes_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A broken property is a finding: report it and abort, which libFuzzer records as a crash.
[[noreturn]] inline void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz property broken: %s: %s\n", what, detail.c_str());
  std::abort();
}

// Errors must say what was read: every message names the input's label.
inline void expect_named(const Status& st, const std::string& label) {
  if (st.ok()) fail("error without a code", "ok status used as an error");
  if (st.message().find(label) == std::string::npos)
    fail("error does not name the input", st.message());
}

}  // namespace ig::fuzz

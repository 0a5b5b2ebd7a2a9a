// Reading the store's text columns back into typed values (store internals).
#pragma once

#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "core/status.h"

namespace ig {

// A tensor hash column: 16 lower-case hex digits.
Expected<uint64_t> parse_hash(const std::string& hex);
// A dtype column: a name dtype_from_name knows.
Expected<DType> parse_dtype(const std::string& name);

}  // namespace ig

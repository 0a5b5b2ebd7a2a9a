// Operators whose output elements are copies of input elements (or constants and shapes): they
// move data and compute nothing, so they neither create nor change an error. `compare --layers`
// hides them unless --all-nodes.
#pragma once

#include <string>

namespace ig {

bool copies_input_bits(const std::string& op_type);

}  // namespace ig

// Test helper: the input a `--input NAME=SPEC` would make for a target.
#pragma once

#include <cstdint>
#include <string>

#include "inputs/inputs.h"

namespace ig::testing {

inline Expected<NamedInput> input_from_spec(const std::string& spec, const InputTarget& t,
                                            uint64_t seed = 0) {
  IG_ASSIGN_OR_RETURN(InputSource src, parse_input_source(spec));
  return make_input(src, t, seed);
}

}  // namespace ig::testing

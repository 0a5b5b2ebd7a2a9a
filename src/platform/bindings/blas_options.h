// The `blas` platform's spec and the environment its worker starts with.
#pragma once

#include <map>
#include <string>

#include "backends/blas/blas_library.h"
#include "platform/spec.h"

namespace ig {

// Validates `blas:lib=...,core=...|arch=...,threads=N`; errors list the valid keys and values.
Expected<BlasChoice> parse_blas_spec(const PlatformSpec& spec);
// What the worker must have from its start: these libraries read their knobs once, at load.
std::map<std::string, std::string> blas_environment(const BlasChoice& choice);

}  // namespace ig

// The `cuda` platform's spec, parsed without touching the GPU (so its knobs are validated and
// tested on machines without one): `cuda:algo=winograd,tf32=off,deterministic=on,device=0`.
#pragma once

#include "backends/cuda/cuda_options.h"
#include "platform/spec.h"

namespace ig::cuda {

Expected<Options> parse_options(const PlatformSpec& spec);

}  // namespace ig::cuda

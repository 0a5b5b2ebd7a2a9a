// int4/uint4 weights, as block-wise weight-only quantization writes them (ORT's and ModelOpt's
// 4-bit QDQ models: an int4 initializer into DequantizeLinear with block_size), read without an
// int4 type: each such initializer becomes int8/uint8 holding the same values. DequantizeLinear
// computes (x - zero_point) * scale, the same on the widened values, so nothing else changes.
#pragma once

#include "core/status.h"

namespace onnx {
class GraphProto;
}

namespace ig {

// Widens, in `g` itself, every int4/uint4 initializer with inline data that only
// DequantizeLinear reads (as X or as the zero point), and the value types declared for it.
// Others stay as they are (check_lacked_types refuses them by node). Errors: packed data of the
// wrong size, naming the initializer.
Status widen_int4_weights(onnx::GraphProto& g);

}  // namespace ig

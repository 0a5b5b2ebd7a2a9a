// XNNPACK's 8-bit operators for QOperator models' nodes outside int8 groups: MaxPool on integers,
// com.microsoft's QLinearAdd and QLinearGlobalAveragePool (xnnpack_ops_int8.cpp).
#pragma once

#include "backends/xnnpack/xnnpack_ops.h"

namespace ig::xnnpack {

// MaxPool of u8 or s8 X (input 0) over window `w` into NCHW `out`.
Expected<OpResult> run_int8_max_pool(Ctx& c, const OpInputs& x, const Window2d& w,
                                     const Shape& out);

// The com.microsoft entries: QLinearAdd, QLinearGlobalAveragePool.
const std::vector<OpDef>& int8_ops();

}  // namespace ig::xnnpack

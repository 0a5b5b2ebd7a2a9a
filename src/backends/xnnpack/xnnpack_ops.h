// XNNPACK operators per ONNX operator. Each entry checks what XNNPACK can do from the node alone
// (a reason otherwise) and runs one node: operands copied into XNNPACK's layout (NHWC for
// convolutions and pools), one operator created, set up and run, the output copied back.
#pragma once

#include <string>
#include <vector>

#include "backends/op_table.h"
#include "backends/xnnpack/xnnpack_common.h"

namespace ig::xnnpack {

using OpInputs = NodeOperands;

struct OpResult {
  Tensor out;
  std::string note;  // the operator and what was converted, e.g. "xnn:convolution2d_nhwc_f32 ..."
};

using RunFn = Expected<OpResult> (*)(Ctx& c, const OpInputs& x);
using OpDef = OpEntry<RunFn>;

// Every mapped operator: convolution, fully connected, pooling, elementwise, then lone
// QuantizeLinear / DequantizeLinear (int8 QDQ groups: xnnpack_int8.h).
const std::vector<OpDef>& ops();
const std::vector<OpDef>& conv_ops();
const std::vector<OpDef>& gemm_ops();
const std::vector<OpDef>& pool_ops();
const std::vector<OpDef>& elementwise_ops();
const std::vector<OpDef>& quant_ops();

// Operators XNNPACK (this snapshot) has no f32 operator for, with why: a sharper reason than
// "no mapping"; nullptr for any other operator.
const char* known_missing(const std::string& op_type);

// Every input tensor must be fp32 (runtime check; the reason names the input).
Status require_float(const OpInputs& x);
// Every input tensor must have elements (XNNPACK refuses empty batches and channels).
Status require_nonempty(const OpInputs& x);

// "xnn:NAME_f32 (LAYOUT)" or "xnn:NAME_f16 (LAYOUT; fp32 operands rounded to fp16)".
std::string note_of(const std::string& name, bool half, const std::string& layout = "");

}  // namespace ig::xnnpack

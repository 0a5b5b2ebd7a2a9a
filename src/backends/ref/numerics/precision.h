// The dtype knob: run a model in another floating precision by converting every floating tensor
// of it (initializers, constants, graph inputs, Cast targets) to that type, so each operator
// computes and rounds in it, as hardware of that precision would.
#pragma once

#include "backends/value.h"
#include "model/graph.h"
#include "tensor/convert.h"

namespace ig {

void convert_float_value(Value& v, DType target);
// A copy of the model with every floating constant attribute, declared type and floating Cast
// target changed to `target` (subgraphs included); under fp64, casts to fp16 and bf16 keep their
// rounding. Initializers are left as they are: the executor converts each as a node reads it.
Model convert_model_precision(const Model& model, DType target);

}  // namespace ig

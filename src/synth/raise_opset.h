// Raising a model's ai.onnx opset for a mutator whose operator is newer than the model: ONNX's own
// version converter as far as Debian's libonnx 1.12 knows (opset 17), then by hand to 20 for the
// operators whose signature changed on the way (ONNX's Changelog.md): the Reduce operators take
// their axes as an input from 18, and a graph holding DFT (axis an input at 20) or GridSample (its
// modes renamed at 20) is refused rather than guessed at. The other changes of 18 to 20 add
// attributes, inputs or types whose defaults keep the old meaning.
#pragma once

#include <cstdint>

#include "core/status.h"

namespace onnx {
class ModelProto;
}

namespace ig {

// The newest opset raise_opset reaches.
inline constexpr int64_t kMaxRaisedOpset = 20;

// `model` at `opset` when it is lower (unchanged otherwise); the IR version goes up with it.
Status raise_opset(onnx::ModelProto& model, int64_t opset);

}  // namespace ig

// The newest opset of each domain whose operators the reference kernels implement as that opset
// defines them. A model that declares a newer one would run as if it declared this one (kernels'
// ranges are open-ended, op_table.h), silently computing another model: it is refused instead.
#pragma once

#include <string_view>

#include "model/graph.h"

namespace ig {

struct OpsetLimit {
  std::string_view domain;  // "" is ai.onnx
  int64_t newest;
};

// ai.onnx 28, the newest ONNX 1.23 defines. The opset 18 and 19 changes are in the kernels
// (Reduce* axes as an input, Split num_outputs, Pad axes and wrap, Resize antialias / axes /
// keep_aspect_ratio_policy / half_pixel_symmetric, ScatterND max/min, LpPool and AveragePool
// dilations). From 20 to 28 most new versions only add types (bfloat16, int4, float8...), which
// the kernels refuse by dtype where they lack them; the others are followed or refused per node:
// GroupNormalization-21's per-channel scale, Mod-28's signed zero, BitShift-28's signed types are
// followed; block_size and precision (QuantizeLinear 21, 23), DequantizeLinear-23's output_dtype,
// Range-27's stash_type for 16-bit floats and SpaceToDepth-28's CRD mode are refused; DFT-20 takes
// its axis as an input; GridSample-20's mode names are read (its N-D inputs are refused).
// scripts/opset-changes lists what each version changed, from the onnx package's schemas.
inline constexpr OpsetLimit kRefOpsetLimits[] = {
    {"", 28},
    {"ai.onnx.preview.training", 1},
    {"com.microsoft", 1},
};

// Ok, or kInvalidArgument naming the model file, the domain and both versions. Domains the
// reference backend has no kernels for are not limited here: their nodes are refused one by one.
Status check_ref_opsets(const Model& model);

}  // namespace ig

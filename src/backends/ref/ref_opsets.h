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

// ai.onnx 19: the opset 18 and 19 changes are in the kernels (Reduce* axes as an input, Split
// num_outputs, Pad axes and wrap, Resize antialias / axes / keep_aspect_ratio_policy /
// half_pixel_symmetric, ScatterND max/min, LpPool and AveragePool dilations); opset 20 changes
// DFT (axis becomes an input) and GridSample (mode names), which they do not follow.
inline constexpr OpsetLimit kRefOpsetLimits[] = {
    {"", 19},
    {"ai.onnx.preview.training", 1},
    {"com.microsoft", 1},
};

// Ok, or kInvalidArgument naming the model file, the domain and both versions. Domains the
// reference backend has no kernels for are not limited here: their nodes are refused one by one.
Status check_ref_opsets(const Model& model);

}  // namespace ig

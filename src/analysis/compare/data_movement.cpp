#include "analysis/compare/data_movement.h"

#include <set>

namespace ig {

bool copies_input_bits(const std::string& op_type) {
  static const std::set<std::string> ops = {
      "Identity",        "Reshape",  "Flatten",      "Squeeze",      "Unsqueeze",
      "Transpose",       "Constant", "Shape",        "Size",         "Dropout",
      "ConstantOfShape", "Concat",   "Split",        "Slice",        "Gather",
      "Expand",          "Tile",     "DepthToSpace", "SpaceToDepth", "GatherElements",
      "GatherND"};
  return ops.count(op_type) > 0;
}

}  // namespace ig

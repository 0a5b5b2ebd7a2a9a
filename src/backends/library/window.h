// The geometry of a sliding window (Conv, pooling) that libraries taking explicit padding need:
// ONNX's auto_pad and ceil_mode resolved into begin/end padding and output sizes.
#pragma once

#include <vector>

#include "model/graph.h"

namespace ig {

struct Window {
  // pad_end is what the last window actually reaches past the input (a stride that does not fit
  // leaves part of the declared padding unused); declared_pad_end is the padding as the node
  // declares it (auto_pad resolved), what symmetric-padding APIs take.
  std::vector<int64_t> kernel, strides, dilations, pad_begin, pad_end, declared_pad_end, out;
  bool symmetric() const { return pad_begin == declared_pad_end; }
};
// `in` is the input shape [N, C, spatial...]; `kernel` the spatial kernel dims.
Expected<Window> window_of(const Node& node, const Shape& in, const std::vector<int64_t>& kernel,
                           bool ceil_mode);

}  // namespace ig

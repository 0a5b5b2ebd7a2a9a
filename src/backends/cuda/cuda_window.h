// Sliding-window geometry (Conv, pooling) in the form cuDNN takes: ONNX's pads, auto_pad and
// ceil_mode resolved by the reference backend's rules, then checked to be symmetric (cuDNN pads
// both ends alike), with 1-D windows padded to 2-D.
#pragma once

#include <vector>

#include "backends/cuda/cuda_ops.h"

namespace ig::cuda {

struct CudnnWindow {
  std::vector<int64_t> kernel, pads, strides, dilations, out;  // at least 2 spatial dims
};

// `x` is [N, C, spatial...]; `kernel` the spatial kernel dims.
Expected<CudnnWindow> cudnn_window(const OpArgs& a, const Shape& x, const Shape& kernel,
                                   bool ceil_mode, bool use_dilations = true);

}  // namespace ig::cuda

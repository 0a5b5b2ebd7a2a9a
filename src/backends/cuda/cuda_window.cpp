#include "backends/cuda/cuda_window.h"

#include <fmt/format.h>

#include "backends/ref/kernel.h"
#include "backends/ref/nn_util.h"

namespace ig::cuda {

Expected<CudnnWindow> cudnn_window(const OpArgs& a, const Shape& x, const Shape& kernel,
                                   bool ceil_mode, bool use_dilations) {
  const Numerics numerics;
  const KernelContext ctx(a.node, a.opset, {}, numerics, nullptr);
  const Shape spatial(x.begin() + 2, x.end());
  IG_ASSIGN_OR_RETURN(WindowGeometry g,
                      window_geometry(ctx, spatial, kernel, ceil_mode, use_dilations));
  CudnnWindow w;
  for (size_t d = 0; d < spatial.size(); ++d) {
    if (g.pad_begin[d] != g.pad_end[d]) {
      return unsupported(
          "{}: padding {} at the start and {} at the end of spatial axis {}: cuDNN pads both ends "
          "alike",
          a.node.label(), g.pad_begin[d], g.pad_end[d], d);
    }
    w.kernel.push_back(g.kernel[d]);
    w.pads.push_back(g.pad_begin[d]);
    w.strides.push_back(g.strides[d]);
    w.dilations.push_back(g.dilations[d]);
    w.out.push_back(g.out[d]);
  }
  // A trailing axis of size 1 with a 1-wide window changes nothing.
  while (w.pads.size() < 2) {
    w.kernel.push_back(1);
    w.pads.push_back(0);
    w.strides.push_back(1);
    w.dilations.push_back(1);
  }
  return w;
}

}  // namespace ig::cuda

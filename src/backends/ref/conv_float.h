// Floating-point convolution under the platform's numerics: the algorithm (conv knob) decides the
// order of the terms, the accumulation policy (acc, fma, split, exact, BLAS) how they are summed.
//  - direct: for each output, terms in (kernel position, input channel) order, as direct kernels
//    that vectorise over channel blocks do;
//  - im2col: terms in (input channel, kernel position) order: the rows of the im2col matrix fed
//    to a GEMM;
//  - relo: terms in (kernel column, kernel row, input channel) order, the spatial axes reversed,
//    with no padding between taps: oneDNN's AMX convolution for few input channels ("reduced
//    lowering"), measured bit for bit on Emerald Rapids (docs/PLATFORMS.md, "Matrix units");
//  - winograd2/4, fft: transformed-domain algorithms (numerics/conv_algorithms.h) where they apply
//    (2-D, stride 1, dilation 1, and a 3x3 kernel for Winograd); elsewhere direct, said so in the
//    node's note.
#pragma once

#include "backends/ref/conv_util.h"

namespace ig {

// y = conv(x, w) + b for floating T; b may be null. Sets ctx's note to the algorithm used.
template <typename T>
Status conv_float(KernelContext& ctx, const ConvShape& s, const T* x, const T* w, const T* b, T* y);

}  // namespace ig

// Choosing the cuDNN forward algorithm of one convolution: a fixed algorithm (with a fallback and
// a note when cuDNN cannot run it for this layer), cuDNN's heuristic, or autotuning by timing.
#pragma once

#include <string>

#include "backends/cuda/cuda_common.h"

namespace ig::cuda {

// One convolution's descriptors and device buffers (y is written while autotuning).
struct ConvProblem {
  const TensorDesc& x;
  const FilterDesc& w;
  const ConvDesc& conv;
  const TensorDesc& y;
  const DeviceTensor& xd;
  const DeviceTensor& wd;
  const DeviceTensor& yd;
  std::string key;  // shapes and geometry: autotune results are cached by it, as frameworks do
};

struct ConvChoice {
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t math = CUDNN_FMA_MATH;
  size_t workspace = 0;
  std::string note;  // "algo=fft (autotune)", "algo=gemm (winograd not supported here: ...)"
};

// "winograd": the algorithm's name in kAlgoNames ("unknown" past them).
const char* fwd_algo_name(cudnnConvolutionFwdAlgo_t a);
// The algorithm for `rule`; leaves the math type of p.conv set to the choice's.
Expected<ConvChoice> choose_conv_algo(Context& c, Algo rule, const ConvProblem& p);
// cuDNN's heuristic choice, noted as a fallback from `requested`, which failed with `why`.
Expected<ConvChoice> fallback_choice(Context& c, const ConvProblem& p, Algo requested,
                                     const Status& why);
// Runs y = conv(x, w) with the choice.
Status conv_forward(Context& c, const ConvProblem& p, const ConvChoice& choice);

}  // namespace ig::cuda

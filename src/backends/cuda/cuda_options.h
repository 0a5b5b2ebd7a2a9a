// The `cuda` backend's knobs (platform/bindings/cuda_options.h parses them from a spec):
// convolution algorithms, TF32, deterministic mode, device.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "core/enum_names.h"
#include "core/status.h"

namespace ig::cuda {

// How a convolution's cuDNN forward algorithm is chosen. The fixed ones are
// cudnnConvolutionFwdAlgo_t in its order (kImplicitGemm == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM
// == 0, ...).
enum class Algo {
  kImplicitGemm,
  kImplicitPrecompGemm,
  kGemm,
  kDirect,
  kFft,
  kFftTiling,
  kWinograd,
  kWinogradNonfused,
  kHeuristic,       // cudnnGetConvolutionForwardAlgorithm_v7's first choice (no timing)
  kAutotune,        // cudnnFindConvolutionForwardAlgorithmEx: each algorithm timed once
  kAutotuneMedian,  // each candidate timed several times, the smallest median wins
  kCount
};
inline constexpr size_t kFixedAlgoCount = 8;
inline constexpr auto kAlgoNames = std::to_array<const char*>(
    {"implicit-gemm", "implicit-precomp-gemm", "gemm", "direct", "fft", "fft-tiling", "winograd",
     "winograd-nonfused", "heuristic", "autotune", "autotune-median"});
static_assert(names_cover_enum<Algo>(kAlgoNames), "one distinct name per algorithm");

const char* algo_name(Algo a);
inline bool is_fixed(Algo a) { return static_cast<size_t>(a) < kFixedAlgoCount; }
std::vector<std::string> algo_names();

struct Options {
  // One entry: every convolution. Several (`algo=gemm/fft/winograd`): the i-th convolution of
  // the main graph, in node order, uses entry i; the count must match the model's.
  std::vector<Algo> algos = {Algo::kHeuristic};
  bool tf32 = false;           // TF32 tensor cores for fp32 convolutions and GEMMs
  bool deterministic = false;  // only algorithms cuDNN reports as deterministic
  int device = 0;
  int tune_runs = 5;  // timings per candidate for autotune-median
  bool fallback_ref = false;
};

// The algorithm rule for convolution `index` (0-based, node order) of a model with `count`.
Expected<Algo> algo_for_conv(const Options& o, size_t index, size_t count);
// "gemm", or "gemm/fft/winograd" for a per-layer list.
std::string algos_to_string(const std::vector<Algo>& algos);

}  // namespace ig::cuda

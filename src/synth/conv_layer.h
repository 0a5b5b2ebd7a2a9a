// The paper's convolution ablation (Section 3.3, Fig 4): one standard 2-D convolution with kernel
// k, f filters and input c x i x j, weights uniform [0, 1) by default, no bias and no padding, so
// the number of multiplications is exactly k*k*c*f*(i-k+1)*(j-k+1).
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>

#include "synth/graph_builder.h"

namespace ig {

struct ConvLayerOptions {
  int64_t kernel = 3, filters = 1, channels = 3, height = 32, width = 32;
  uint64_t seed = 0;
  std::optional<WeightInit> init;  // empty: uniform [0, 1) as in the paper
  DType dtype = DType::kFloat32;
};

int64_t conv_layer_multiplications(const ConvLayerOptions& o);

// The input size (i = j, or j = i + 1 when that gets closer) whose multiplication count is
// nearest to `target` for the options' kernel, filters and channels.
ConvLayerOptions conv_layer_for_multiplications(ConvLayerOptions o, double target);

// Input "x" [N, c, i, j] declared in [0, 1); output "y" [N, f, i-k+1, j-k+1].
Expected<onnx::ModelProto> build_conv_layer(const ConvLayerOptions& o);

}  // namespace ig

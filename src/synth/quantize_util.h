// The arithmetic of quantize_model, as ONNX Runtime's quantizer does it (onnxruntime/python/tools/
// quantization/quant_utils.py: compute_scale_zp, quantize_data), and its name bookkeeping.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "tensor/tensor.h"

namespace ig {

struct QParams {
  float scale = 1;
  int32_t zero_point = 0;
};

// Activation parameters from a calibrated range: the range widened to include 0; u8 asymmetric
// (zero point round(-min / scale) in [0, 255]) or s8 symmetric (zero point 0, |q| <= 127). A range
// too small for a normal float scale gets scale 1 and zero point 0.
QParams activation_qparams(double min, double max, bool signed_activations);

// A float weight quantized per channel along `axis`: int8 symmetric, scale max|w_c| / qmax with
// qmax 127 (63 with reduce_range), zero point 0.
struct ChannelQuant {
  Tensor q;                   // int8, the weight's shape
  std::vector<float> scales;  // one per channel
};
ChannelQuant quantize_per_channel(const Tensor& w, int axis, bool reduce_range);
// An int32 bias quantized with scale[c] = x_scale * w_scale[c], zero point 0.
Tensor quantize_bias(const Tensor& b, float x_scale, const std::vector<float>& w_scales,
                     std::vector<float>* b_scales);

// Names not yet used in the graph; `take` returns the hint itself when free.
class NameSet {
 public:
  explicit NameSet(const onnx::GraphProto& g);
  std::string take(const std::string& hint);

 private:
  std::set<std::string> used_;
};

onnx::NodeProto make_node(const std::string& op, const std::string& name,
                          const std::vector<std::string>& inputs, const std::string& output);
void set_int_attr(onnx::NodeProto& n, const std::string& key, int64_t v);
const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& key);
// An INT attribute's value, or `fallback` when the node lacks it.
int64_t int_attr_or(const onnx::NodeProto& n, const std::string& key, int64_t fallback);
// The model's ai.onnx opset (0 when it imports none).
int64_t default_opset(const onnx::ModelProto& model);

}  // namespace ig

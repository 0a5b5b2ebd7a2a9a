// Static QDQ quantization in the layout ONNX Runtime's quantizer writes (QuantFormat.QDQ):
// per-tensor QuantizeLinear -> DequantizeLinear pairs on the activations around Conv, Gemm,
// MatMul, Add and the pools; int8 symmetric per-channel weights and int32 biases behind
// DequantizeLinear. Activation ranges come from running the float model on the reference
// backend over calibration inputs. The result records its lineage (synth/mutate.h) as a
// `quantize` mutation, so replay_lineage rebuilds it from its parent.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "inputs/inputs.h"

namespace ig {

// A calibrated activation range.
struct TensorRange {
  double min = 0, max = 0;
};

struct QuantizeOptions {
  bool signed_activations = false;  // s8 symmetric (zero point 0) instead of u8 asymmetric
  bool reduce_range = false;        // weights in 7 bits: |q| <= 63
  // Q/DQ on the inputs of Conv, Gemm and MatMul only, their outputs left in float and Add and the
  // pools not quantized: the layout of TensorRT's explicit quantization and NVIDIA ModelOpt.
  bool inputs_only = false;
  bool percentile = false;          // else min/max
  double percentile_value = 99.99;  // of |x|, with --calibration percentile
  int64_t samples = 8;              // generated calibration samples (ignored with `calibrate`)
  uint64_t seed = 0;
  std::vector<std::string> block;  // op types or node names left in float
  // --input NAME=SPEC / --shape / --dim for the generated samples; sample k draws its random
  // inputs with derive_seed(seed, "calibration/k").
  InputRequest inputs;
  // [NAME=]PATH: .npy/.pb files, or folders of them (sorted), one sample per file; NAME may be
  // left out for a model with one input. Every named input needs the same number of files.
  std::vector<std::string> calibrate;
  std::string label = "model";                                // the model's path, for messages
  std::string base_dir;                                       // resolves external data
  std::function<void(int64_t done, int64_t total)> progress;  // after each calibration sample
  // Reused by repeated quantizations of one parent (precision's search, which only adds --block):
  // ranges calibrated here are added, and a run whose tensors are all present calibrates nothing.
  std::map<std::string, TensorRange>* range_cache = nullptr;
};

struct QuantizedTensor {
  std::string name;
  double min = 0, max = 0;  // calibrated range (after the percentile clip)
  float scale = 1;
  int32_t zero_point = 0;
};

struct QuantizeResult {
  onnx::ModelProto model;
  std::vector<std::string> quantized_nodes;  // names of the nodes reading dequantized values
  std::vector<std::string> folded;           // Relu/Clip whose output is quantized in place
  std::vector<QuantizedTensor> activations;  // per-tensor parameters, in graph order
  int64_t weights = 0;                       // per-channel int8 initializers
  int64_t weight_channels = 0;               // their scale / zero point pairs
  int64_t biases = 0;                        // int32 initializers
  int64_t samples = 0;                       // calibration samples run
  bool opset_raised = false;                 // the parent's ai.onnx opset was below 13
};

// A node that makes the model already quantized (QuantizeLinear, DequantizeLinear, QLinear*,
// *Integer, ...), or nullptr.
const onnx::NodeProto* quantized_node(const onnx::GraphProto& g);

// Quantizes `parent`. Errors: an already quantized model (naming the node), calibration inputs that
// do not fit the model (naming the file), nothing to quantize, a model ref cannot run.
Expected<QuantizeResult> quantize_model(const onnx::ModelProto& parent,
                                        const QuantizeOptions& options);

// The options as lineage parameters and back (replay ignores `progress`, `label`, `base_dir`).
std::map<std::string, std::string> quantize_params(const QuantizeOptions& options);
Expected<QuantizeOptions> quantize_options_from(const std::map<std::string, std::string>& params);

// The default-domain opset raised to `version` by ONNX's version converter (nothing when already
// there). Errors carry the converter's message.
Status raise_opset(onnx::ModelProto& model, int64_t version, bool* raised = nullptr);
bool is_blocked(const onnx::NodeProto& n, const std::vector<std::string>& block);

// Calibration (quantize_calibrate.cpp): runs the float model on ref over the samples and returns
// each named tensor's range. Graph inputs are measured from the feeds.
Expected<std::map<std::string, TensorRange>> calibrate_ranges(const onnx::ModelProto& model,
                                                              const std::vector<std::string>& names,
                                                              const QuantizeOptions& options,
                                                              int64_t* samples_run);

}  // namespace ig

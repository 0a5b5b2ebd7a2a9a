// The cuda backend's operators: each maps one ONNX node onto cuDNN or cuBLAS calls. A node's inputs
// are read on the host (attributes, shapes, small constants) or on the device (uploaded once per
// value by the executor); the output stays on the device for the next node.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/cuda/cuda_common.h"
#include "model/graph.h"

namespace ig::cuda {

struct OpArgs {
  const Node& node;
  int64_t opset;
  std::vector<const Tensor*> host;                       // per input; nullptr when absent
  std::function<Expected<DeviceTensor>(size_t)> device;  // input i on the device
  size_t conv_index = 0;  // this Conv's position among the main graph's Conv nodes
  size_t conv_count = 0;
  bool has(size_t i) const { return i < host.size() && host[i]; }
  const Tensor& in(size_t i) const { return *host[i]; }
};

struct OpResult {
  DeviceTensor out;
  std::string note;  // e.g. "algo=winograd" or "cudnnPoolingForward max"
};

struct OpDef {
  const char* op_type;
  // Static check (attributes only; shapes and dtypes are checked when the node runs).
  Status (*check)(const Node& node, int64_t opset);
  Expected<OpResult> (*run)(Context& c, const OpArgs& a);
};

const OpDef* find_op(const std::string& op_type);
std::vector<std::string> op_names();

// kUnsupported naming the node unless every present input in `inputs` is float32.
Status require_float(const OpArgs& a, std::initializer_list<size_t> inputs);

// The operator families (one file each).
Expected<OpResult> run_conv(Context& c, const OpArgs& a);
Status check_conv(const Node& node, int64_t opset);
Expected<OpResult> run_pool(Context& c, const OpArgs& a);
Status check_pool(const Node& node, int64_t opset);
Expected<OpResult> run_batchnorm(Context& c, const OpArgs& a);
Status check_batchnorm(const Node& node, int64_t opset);
Expected<OpResult> run_softmax(Context& c, const OpArgs& a);
Expected<OpResult> run_activation(Context& c, const OpArgs& a);
Status check_activation(const Node& node, int64_t opset);
Expected<OpResult> run_binary(Context& c, const OpArgs& a);
Expected<OpResult> run_gemm(Context& c, const OpArgs& a);
Status check_gemm(const Node& node, int64_t opset);
Expected<OpResult> run_matmul(Context& c, const OpArgs& a);

}  // namespace ig::cuda

// The cuda backend's operators: each maps one ONNX node onto cuDNN or cuBLAS calls. A node's inputs
// are read on the host (attributes, shapes, small constants) or on the device (uploaded once per
// value by the executor); the output stays on the device for the next node.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/cuda/cuda_common.h"
#include "backends/op_table.h"
#include "model/graph.h"

namespace ig::cuda {

// What a node's input is wherever its elements live (host or device): enough for checks and
// descriptors. The elements on the host: OpArgs::host.
class TensorInfo {
 public:
  TensorInfo(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {}
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_[static_cast<size_t>(i < 0 ? i + rank() : i)]; }
  int64_t numel() const { return shape_numel(shape_); }

 private:
  DType dtype_;
  Shape shape_;
};

struct OpArgs {
  const Node& node;
  int64_t opset;
  std::vector<std::optional<TensorInfo>> inputs;         // per input; nullopt when absent
  std::function<Expected<DeviceTensor>(size_t)> device;  // input i on the device
  // Input i's elements on the host (Clip's bounds, Gemm's C), copied back if only the device has
  // them.
  std::function<Expected<const Tensor*>(size_t)> host;
  size_t conv_index = 0;  // this Conv's position among the main graph's Conv nodes
  size_t conv_count = 0;
  bool has(size_t i) const { return i < inputs.size() && inputs[i].has_value(); }
  const TensorInfo& in(size_t i) const { return *inputs[i]; }
};

struct OpResult {
  DeviceTensor out;
  std::string note;            // e.g. "algo=winograd" or "cudnnPoolingForward max"
  std::string algorithm = {};  // Conv: the cuDNN algorithm used, e.g. "winograd"
};

using RunFn = Expected<OpResult> (*)(Context& c, const OpArgs& a);
// Checks are static (attributes only; shapes and dtypes are checked when the node runs).
using OpDef = OpEntry<RunFn>;

// Every mapped operator.
const std::vector<OpDef>& ops();

// kUnsupported naming the node unless every present input in `inputs` is float32.
Status require_float(const OpArgs& a, std::initializer_list<size_t> inputs);

// The operator families (one file each).
Expected<OpResult> run_conv(Context& c, const OpArgs& a);
Status check_conv(const Node& node, const Model& model);
Expected<OpResult> run_pool(Context& c, const OpArgs& a);
Status check_pool(const Node& node, const Model& model);
Expected<OpResult> run_batchnorm(Context& c, const OpArgs& a);
Status check_batchnorm(const Node& node, const Model& model);
Expected<OpResult> run_softmax(Context& c, const OpArgs& a);
Expected<OpResult> run_activation(Context& c, const OpArgs& a);
Status check_activation(const Node& node, const Model& model);
Expected<OpResult> run_binary(Context& c, const OpArgs& a);
Expected<OpResult> run_gemm(Context& c, const OpArgs& a);
Status check_gemm(const Node& node, const Model& model);
Expected<OpResult> run_matmul(Context& c, const OpArgs& a);

}  // namespace ig::cuda

// qdq=int: the reference interpreter runs each DequantizeLinear -> Conv/Gemm/MatMul -> [Relu|Clip]
// [-> QuantizeLinear] group of a QDQ model (model/qdq_group.h, the groups the int8 libraries see)
// as one integer kernel (QLinearConv), the way ONNX Runtime, oneDNN and XNNPACK fuse it, so the
// integer knobs (madd, requant, qround) reach it. A group without a QuantizeLinear (quantizers that
// put Q/DQ on the inputs of Conv and Gemm only: TensorRT's explicit quantization, ModelOpt, ONNX
// Runtime's OpTypesToExcludeOutputQuantization) writes float, as oneDNN's int8 kernels with an f32
// destination do. The plan replaces each group by one node at its last node's place; the trace
// reports it as that node covering the group's nodes, as other fused platforms do.
#pragma once

#include <string>
#include <vector>

#include "backends/ref/kernel.h"
#include "model/graph.h"

namespace ig {

struct IntKernelGroup {
  Node fused;  // QLinearConv-shaped: x, xs, xz, w, ws, wz, ys, yz[, b]; the product's attributes
  KernelFn kernel = nullptr;
  const Node* report_as = nullptr;  // the group's last node: its QuantizeLinear, Relu/Clip or head
  size_t at = 0;                    // that node's index: the group runs in its place
  std::string covers;               // the group's nodes, comma-separated, in graph order
};

struct IntKernelPlan {
  std::vector<IntKernelGroup> groups;
  // Per node of the graph: -1 runs as written, -2 is inside a group (skipped), g >= 0 runs
  // group g in its place.
  std::vector<int> role;
  std::vector<std::vector<std::string>> reads;  // per node, what it reads under the plan
  bool empty() const { return groups.empty(); }
};

// The QDQ groups of `model` (main graph only) whose quantization parameters are per-tensor
// activations and per-tensor or per-output-channel weights held in initializers or Constant nodes.
IntKernelPlan plan_int_kernels(const Model& model);

// The kernels of fused groups: Conv (ops/conv_integer.cpp), Gemm and MatMul (ops/qdq_gemm.cpp).
Status run_qdq_conv_group(KernelContext& ctx);
Status run_qdq_gemm_group(KernelContext& ctx);

}  // namespace ig

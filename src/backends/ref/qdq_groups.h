// qdq=int: the reference interpreter runs each DequantizeLinear -> Conv/Gemm/MatMul -> [Relu|Clip]
// -> QuantizeLinear group of a QDQ model (model/qdq_group.h, the groups the int8 libraries see) as
// one integer kernel (QLinearConv), the way ONNX Runtime, oneDNN and XNNPACK fuse it, so the
// integer knobs (madd, requant, qround) reach it. The plan replaces each group by one node at its
// QuantizeLinear's place; the trace reports it as that QuantizeLinear covering the group's nodes,
// as other fused platforms do.
#pragma once

#include <string>
#include <vector>

#include "backends/ref/kernel.h"
#include "model/graph.h"

namespace ig {

struct IntKernelGroup {
  Node fused;  // QLinearConv-shaped: x, xs, xz, w, ws, wz, ys, yz[, b]; the product's attributes
  KernelFn kernel = nullptr;
  const Node* report_as = nullptr;  // the group's QuantizeLinear
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

// The QDQ groups of `model` (main graph only) that end in a QuantizeLinear and whose quantization
// parameters are per-tensor activations and per-tensor or per-output-channel weights held in
// initializers or Constant nodes.
IntKernelPlan plan_int_kernels(const Model& model);

// The kernels of fused groups: Conv (ops/conv_integer.cpp), Gemm and MatMul (ops/qdq_gemm.cpp).
Status run_qdq_conv_group(KernelContext& ctx);
Status run_qdq_gemm_group(KernelContext& ctx);

}  // namespace ig

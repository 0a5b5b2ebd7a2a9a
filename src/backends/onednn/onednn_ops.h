// oneDNN primitives per ONNX operator. Each entry checks what it can do (a reason otherwise) and
// runs one node, optionally with post-ops fused from the nodes after it.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include "backends/onednn/onednn_common.h"
#include "backends/op_table.h"

namespace ig::onednn {

using OpInputs = NodeOperands;

using RunFn = Expected<OpResult> (*)(Ctx& c, const OpInputs& x, const std::vector<PostOp>& post);
// How oneDNN runs an operator: one node, optionally with post-ops fused from the nodes after it
// when `takes_post_ops` (it may head a fused group).
struct Run {
  RunFn fn = nullptr;
  bool takes_post_ops = false;
  // How many leading inputs may arrive as oneDNN memory in the layout their producer left
  // (Ctx::native_in); such an op may also leave its output there (Ctx::keep_native). Only ops
  // that read those inputs through `execute` alone and return its result as it is.
  int native_sources = 0;
};
// Checks say what oneDNN can do from the node alone (attributes, constant inputs).
using OpDef = OpEntry<Run>;

// Every mapped operator: the nn table, the elementwise one, then QuantizeLinear /
// DequantizeLinear as reorders (onednn_int8.h).
const std::vector<OpDef>& ops();

// The eltwise algorithm an ONNX unary node maps to, if any (also used to fuse it as a post-op).
std::optional<PostOp> eltwise_post_op(const Node& node, const Model& model);
// The binary algorithm of Add/Sub/Mul/Div/Max/Min with two inputs.
std::optional<dnnl::algorithm> binary_alg(const Node& node);

// A BatchNormalization applied by the Conv before it as three per-channel post-ops: - mean,
// * f, + B, each rounded, with f = scale / sqrt(var + eps) in fp32 (the reference backend's
// bn=folded). `params` are scale, B, mean and var; `rank` and `channels` are the convolution
// output's.
Expected<std::vector<PostOp>> bn_post_ops(const Node& bn,
                                          const std::array<const Tensor*, 4>& params, size_t rank,
                                          int64_t channels);

// A Conv's weights [M, ...] and bias [M] (nullptr: none, taken as zeros) with the
// BatchNormalization after it folded in: W * f and (b - mean) * f + B, each in fp32, with f as
// bn_post_ops computes it. Unsupported unless they are fp32 with M channels.
Expected<std::array<Tensor, 2>> bn_into_weights(const Node& bn,
                                                const std::array<const Tensor*, 4>& params,
                                                const Tensor& weights, const Tensor* bias);

// Registration tables of the two op files.
const std::vector<OpDef>& nn_ops();
const std::vector<OpDef>& elementwise_ops();
const std::vector<OpDef>& quant_ops();

// Every input tensor must be fp32 or bf16, and with `one_type` all of one type (runtime check;
// the reason names the input). Normalizations take their parameters in either type.
Status require_float(const OpInputs& x, bool one_type = true);

}  // namespace ig::onednn

// ONNX operators as ATen calls, one table per family (torch_ops_*.cpp). Each entry calls the ATen
// function PyTorch's own modules call (F.conv2d -> at::conv2d, nn.Linear -> at::linear, ...), so
// a model exported from PyTorch runs the kernels it ran in eager mode.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "backends/op_table.h"

namespace ig::torchb {

struct OpInputs {
  const Node& node;
  int64_t opset;
  std::vector<at::Tensor> in;  // undefined for a missing optional input
  bool has(size_t i) const { return i < in.size() && in[i].defined(); }
  const at::Tensor& at(size_t i) const { return in[i]; }
};

struct OpResult {
  std::vector<at::Tensor> outs;  // one per node output, in order
  std::string kernel;            // NodeReport::note, e.g. "aten::conv2d"
};
inline OpResult one(at::Tensor t, std::string kernel) {
  return {{std::move(t)}, std::move(kernel)};
}

using RunFn = Expected<OpResult> (*)(const OpInputs& x);
using OpDef = OpEntry<RunFn>;

// Every mapped operator, the families' tables concatenated.
const std::vector<OpDef>& ops();
const std::vector<OpDef>& conv_ops();
const std::vector<OpDef>& gemm_ops();
const std::vector<OpDef>& pool_ops();
const std::vector<OpDef>& norm_ops();
const std::vector<OpDef>& unary_ops();
const std::vector<OpDef>& binary_ops();
const std::vector<OpDef>& reduce_ops();
const std::vector<OpDef>& shape_ops();
const std::vector<OpDef>& resize_ops();
const std::vector<OpDef>& misc_ops();
const std::vector<OpDef>& rnn_ops();

// Shared checks and helpers.
// kUnsupported when any output after the first is used (ATen returns only the main result).
Status only_first_output(const Node& node, const Model& model);
// `r` when its first output's spatial dims are `out` (ONNX's window arithmetic); otherwise
// kUnsupported, since ATen then computed a different window than the node declares.
Expected<OpResult> expect_spatial(const OpInputs& x, OpResult r, const std::vector<int64_t>& out);
// The dims of an ATen tensor as an infergap Shape.
inline Shape shape_of(const at::Tensor& t) { return Shape(t.sizes().begin(), t.sizes().end()); }
// Integer list of a constant input (an initializer or a Constant node's value) or attribute.
std::vector<int64_t> int_list(const at::Tensor& t);
// Axes normalised into [0, rank).
Expected<std::vector<int64_t>> normalize_axes(const Node& node, std::vector<int64_t> axes,
                                              int64_t rank);

}  // namespace ig::torchb

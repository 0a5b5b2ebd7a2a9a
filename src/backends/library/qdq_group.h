// Int8 QDQ groups as ONNX Runtime's quantizer writes them: DequantizeLinear(x) and
// DequantizeLinear(w), optionally DequantizeLinear(bias), into a Conv, Gemm or MatMul, optionally
// a Relu, optionally a QuantizeLinear. This finds the group's nodes only; each library checks
// what its integer kernels take (types, scales, zero points) and says why not in its own words.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/graph.h"

namespace ig {

// A DequantizeLinear the head reads.
struct QdqInput {
  size_t node = 0;
  // Its output is read by the head only and is no graph output: it joins the group, which reads
  // its integers. Otherwise it runs on its own and the group quantizes its output again (exact:
  // (q - zp) * s divided by s rounds back to q).
  bool owned = false;
};

struct QdqGroup {
  size_t head = 0;  // Conv, Gemm or MatMul
  QdqInput x, w;
  std::optional<QdqInput> b;  // bias from a DequantizeLinear
  std::optional<size_t> relu, q;
  std::vector<size_t> nodes;  // owned DequantizeLinears, head, relu, q: in graph order
};

// A tensor by value name, or nullptr when not known (yet): the model's initializers when
// planning, the run's values when running.
using TensorLookup = std::function<const Tensor*(const std::string&)>;

// The group headed by main-graph node `head`, or nullopt when the head is no Conv, Gemm or
// MatMul reading its data and weights through DequantizeLinear (an fp32 node).
std::optional<QdqGroup> find_qdq_group(const Model& model, size_t head);

// The initializers of `model` as a lookup.
TensorLookup initializers_of(const Model& model);

// Helpers for the libraries' checks: input `i` of `n` when `known` holds it, else nullptr;
// u8 or s8; every element 0; every element equal.
const Tensor* qdq_operand(const Node& n, size_t i, const TensorLookup& known);
bool qdq_int8_type(DType t);
bool qdq_all_zero(const Tensor& t);
bool qdq_uniform(const Tensor& t);

}  // namespace ig

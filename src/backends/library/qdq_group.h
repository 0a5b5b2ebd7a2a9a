// The libraries' view of an int8 QDQ group (model/qdq_group.h, the one finder the reference
// interpreter's integer kernels use too), and helpers for the checks each library makes of what
// its integer kernels take (types, scales, zero points), in its own words.
#pragma once

#include <optional>
#include <string>

#include "model/qdq_group.h"

namespace ig {

// The group headed by `head` as the libraries fuse it. Their int8 kernels fuse a Relu, not a
// Clip: a group whose activation is a Clip ends at its head, and the Clip and its QuantizeLinear
// run on their own.
std::optional<QdqGroup> find_library_qdq_group(const QdqGraphIndex& index, size_t head);
std::optional<QdqGroup> find_library_qdq_group(const Model& model, size_t head);

// Helpers for the libraries' checks: input `i` of `n` when `known` holds it, else nullptr;
// u8 or s8; every element 0; every element equal.
const Tensor* qdq_operand(const Node& n, size_t i, const TensorLookup& known);
bool qdq_int8_type(DType t);
bool qdq_all_zero(const Tensor& t);
bool qdq_uniform(const Tensor& t);

}  // namespace ig

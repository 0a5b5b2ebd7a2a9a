#include "model/int4_weights.h"

#include <onnx/onnx_pb.h>

#include <string>

#include "core/narrow_types.h"
#include "model/tensor_proto.h"

namespace ig {

namespace {

bool only_dequantize_reads(const onnx::GraphProto& g, const std::string& name) {
  bool read = false;
  for (const auto& n : g.node()) {
    for (int i = 0; i < n.input_size(); ++i) {
      if (n.input(i) != name) continue;
      if (n.domain() != "" || n.op_type() != "DequantizeLinear" || (i != 0 && i != 2)) return false;
      read = true;
    }
    // A subgraph may read it from this scope too: left to the type check.
    for (const auto& a : n.attribute())
      if (a.has_g() || a.graphs_size() > 0) return false;
  }
  return read;
}

int64_t element_count(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;
  return n;
}

// The packed bytes (two values a byte, the first in the low nibble): raw_data, or int32_data
// holding one packed byte each.
Expected<std::string> packed_bytes(const onnx::TensorProto& t) {
  if (t.has_raw_data()) return t.raw_data();
  auto bytes = int32_data_bytes(t, static_cast<DType>(t.data_type()));
  if (!bytes.ok()) return bytes.status().with_context("initializer '" + t.name() + "'");
  return bytes;
}

Status widen(onnx::TensorProto& t) {
  const auto dtype = static_cast<DType>(t.data_type());
  const int64_t n = element_count(t);
  IG_ASSIGN_OR_RETURN(const std::string packed, packed_bytes(t));
  if (n < 0 || static_cast<int64_t>(packed.size()) != packed_size(n, 4))
    return invalid_argument(
        "initializer '{}': {} elements of int4 need {} packed bytes, it holds {}", t.name(), n,
        packed_size(n, 4), packed.size());
  std::string widened(static_cast<size_t>(n), '\0');
  const auto* bytes = reinterpret_cast<const uint8_t*>(packed.data());
  for (int64_t k = 0; k < n; ++k) {
    const auto code = static_cast<uint8_t>(packed_code(bytes, k, 4));
    widened[static_cast<size_t>(k)] = static_cast<char>(narrow_int_value(dtype, code));
  }
  t.set_data_type(dtype == DType::kInt4 ? onnx::TensorProto::INT8 : onnx::TensorProto::UINT8);
  t.clear_int32_data();
  t.set_raw_data(widened);
  return Status::Ok();
}

}  // namespace

Status widen_int4_weights(onnx::GraphProto& g) {
  for (auto& t : *g.mutable_initializer()) {
    const auto dtype = static_cast<DType>(t.data_type());
    const bool int4 = dtype == DType::kInt4 || dtype == DType::kUInt4;
    if (!int4 || t.data_location() == onnx::TensorProto::EXTERNAL ||
        !only_dequantize_reads(g, t.name()))
      continue;
    IG_RETURN_IF_ERROR(widen(t));
    for (auto* list : {g.mutable_input(), g.mutable_value_info()})
      for (auto& vi : *list)
        if (vi.name() == t.name() && vi.type().has_tensor_type())
          vi.mutable_type()->mutable_tensor_type()->set_elem_type(t.data_type());
  }
  return Status::Ok();
}

}  // namespace ig

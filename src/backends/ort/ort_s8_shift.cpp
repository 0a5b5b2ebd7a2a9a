#include "backends/ort/ort_s8_shift.h"

#include <onnx/onnx_pb.h>

#include <optional>

#include "model/tensor_proto.h"

namespace ig {

namespace {

// The input holding the output's zero point, for nodes that write quantized integers.
std::optional<int> output_zero_point_input(const std::string& op_type) {
  static const std::map<std::string, int> kAt = {{"QuantizeLinear", 2},
                                                 {"QLinearConv", 7},
                                                 {"QLinearMatMul", 7},
                                                 {"QLinearAdd", 7},
                                                 {"QLinearMul", 7},
                                                 {"QGemm", 8},
                                                 {"QLinearGlobalAveragePool", 4},
                                                 {"QLinearAveragePool", 4},
                                                 {"QLinearSigmoid", 4},
                                                 {"QLinearLeakyRelu", 4},
                                                 {"QLinearSoftmax", 4},
                                                 {"QLinearConcat", 1}};
  auto it = kAt.find(op_type);
  if (it == kAt.end()) return std::nullopt;
  return it->second;
}

// A per-tensor zero point of `type`, or nullopt.
std::optional<int64_t> scalar_zero_point(const Tensor* t, DType type) {
  if (!t || t->dtype() != type || t->numel() != 1) return std::nullopt;
  return t->as_int64(0);
}

}  // namespace

S8ShiftCheck::S8ShiftCheck(const Model& original, const onnx::GraphProto& optimized)
    : original_constants_(initializers_of(original)), optimized_(optimized) {
  for (const auto& init : optimized.initializer()) optimized_initializers_[init.name()] = &init;
}

bool S8ShiftCheck::held_shifted(const Node& made, const std::map<std::string, int>& producer,
                                const std::string& held) const {
  auto p = producer.find(held);
  if (p == producer.end()) return false;
  const onnx::NodeProto& ran = optimized_.node(p->second);
  const auto at = output_zero_point_input(made.op_type);
  const auto ran_at = output_zero_point_input(ran.op_type());
  if (!at || !ran_at || made.inputs.size() <= size_t(*at) || ran.input_size() <= *ran_at ||
      ran.output(0) != held)
    return false;
  const auto z = scalar_zero_point(original_constants_(made.inputs[*at]), DType::kInt8);
  auto init = optimized_initializers_.find(ran.input(*ran_at));
  if (!z || init == optimized_initializers_.end()) return false;
  auto t = tensor_from_proto(*init->second);
  const auto u = t.ok() ? scalar_zero_point(&*t, DType::kUInt8) : std::nullopt;
  return u && *u == *z + 128;
}

Tensor unshift_u8(const Tensor& t) {
  Tensor out(DType::kInt8, t.shape());
  const uint8_t* in = t.data<uint8_t>();
  int8_t* o = out.data<int8_t>();
  for (int64_t i = 0; i < t.numel(); ++i) o[i] = static_cast<int8_t>(int(in[i]) - 128);
  return out;
}

}  // namespace ig

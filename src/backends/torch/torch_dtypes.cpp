#include "backends/torch/torch_dtypes.h"

#include <c10/core/ScalarType.h>
#include <c10/macros/Macros.h>
#include <torch/version.h>

#include <set>

#include "backends/torch/torch_aten.h"

namespace ig::torchb {

namespace {

constexpr const char* kLibtorch =
    "libtorch " C10_STRINGIZE(TORCH_VERSION_MAJOR) "." C10_STRINGIZE(TORCH_VERSION_MINOR);

// What a value is declared as: dtype and rank (-1 unknown).
struct Declared {
  DType dtype = DType::kUndefined;
  int64_t rank = -1;
};

// Used by libtorch 1.13 only, whose CPU kernels lack float16 (check_kernel_dtypes).
[[maybe_unused]] Declared declared(const Model& model, const std::string& name) {
  const Graph& g = model.graph;
  if (auto it = g.initializers.find(name); it != g.initializers.end()) {
    return {it->second.dtype(), static_cast<int64_t>(it->second.shape().size())};
  }
  auto of = [](const ValueInfo& vi) {
    return Declared{vi.dtype, vi.has_shape ? static_cast<int64_t>(vi.dims.size()) : -1};
  };
  if (auto it = g.value_info.find(name); it != g.value_info.end()) return of(it->second);
  for (const auto* list : {&g.inputs, &g.outputs}) {
    for (const auto& vi : *list)
      if (vi.name == name) return of(vi);
  }
  return {};
}

// Operators whose mapped ATen call lacks a float16 CPU kernel in libtorch 1.13 whatever the
// attributes (each call tried on Half tensors). Not here: the elementwise arithmetic,
// comparisons, sum/mean/amax/amin, Cast, Concat, Softsign and GlobalAveragePool
// (adaptive_avg_pool2d), which have one; PRelu and Einsum, whose path depends on shapes.
const std::set<std::string>& no_float16() {
  // clang-format off
  static const std::set<std::string> ops = {
      "AveragePool", "BatchNormalization", "Celu", "Ceil", "Clip", "Conv", "ConvTranspose", "Cos",
      "Elu", "Erf", "Exp", "Floor", "GRU", "Gelu", "Gemm", "GroupNormalization", "HardSigmoid",
      "HardSwish", "InstanceNormalization", "LSTM", "LayerNormalization", "LeakyRelu", "Log",
      "LogSoftmax", "MatMul", "MaxPool", "Mish", "ReduceProd", "Relu", "Resize", "Selu", "Sigmoid",
      "Sin", "Softmax", "Softplus", "Sqrt", "Tanh", "ThresholdedRelu"};
  // clang-format on
  return ops;
}

// Whether the node's ATen call lacks a kernel for `dt`, given the rank of its first input.
[[maybe_unused]] bool lacks(const Node& node, DType dt, int64_t rank) {
  const std::string& op = node.op_type;
  const bool edge_pad = op == "Pad" && node.attr_string("mode", "constant") != "constant";
  if (dt == DType::kFloat16) {
    // Global pooling of 4-D input is adaptive_max_pool2d; other ranks are amax, which has one.
    return no_float16().count(op) != 0 || edge_pad || (op == "GlobalMaxPool" && rank == 4);
  }
  if (dt == DType::kBFloat16) {
    const bool nearest_exact = op == "Resize" && node.attr_string("mode", "nearest") == "nearest" &&
                               node.attr_string("nearest_mode", "") == "round_prefer_ceil";
    return op == "Mish" || op == "ReduceProd" || edge_pad || nearest_exact ||
           ((op == "MaxPool" || op == "AveragePool") && rank == 5);
  }
  return false;
}

[[maybe_unused]] Status no_kernel(const Node& node, DType dt) {
  return unsupported("{}: {}'s CPU kernel has no {}", node.label(), kLibtorch, dtype_name(dt));
}

}  // namespace

Status check_kernel_dtypes(const Node& node, const Model& model) {
#if TORCH_VERSION_MAJOR == 1 && TORCH_VERSION_MINOR <= 13
  const int64_t rank = node.inputs.empty() ? -1 : declared(model, node.inputs[0]).rank;
  for (const auto& in : node.inputs) {
    if (in.empty()) continue;
    const DType dt = declared(model, in).dtype;
    if (lacks(node, dt, rank)) return no_kernel(node, dt);
  }
#endif
  // Another libtorch has other gaps: missing_kernel finds them when the node runs.
  return Status::Ok();
}

std::optional<Status> missing_kernel(const Node& node, const std::string& aten_message) {
  const std::string marker = "not implemented for '";
  const size_t at = aten_message.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const size_t begin = at + marker.size();
  const size_t end = aten_message.find('\'', begin);
  const std::string aten_type = aten_message.substr(begin, end - begin);
  std::string type = aten_type;  // ATen's spelling where infergap has no such dtype
  for (int i = 1; i < kNumDTypes; ++i) {
    auto st = scalar_type(static_cast<DType>(i));
    if (st.ok() && aten_type == c10::toString(*st)) type = dtype_name(static_cast<DType>(i));
  }
  const size_t line = aten_message.find('\n');
  return unsupported("{}: {}'s CPU kernel has no {} (ATen: {})", node.label(), kLibtorch, type,
                     aten_message.substr(0, line));
}

}  // namespace ig::torchb

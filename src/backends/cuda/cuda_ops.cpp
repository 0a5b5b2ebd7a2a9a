#include "backends/cuda/cuda_ops.h"

#include <algorithm>

namespace ig::cuda {

namespace {

Status no_check(const Node&, int64_t) { return Status::Ok(); }

const std::vector<OpDef>& table() {
  static const std::vector<OpDef> defs = {
      {"Conv", check_conv, run_conv},
      {"MaxPool", check_pool, run_pool},
      {"AveragePool", check_pool, run_pool},
      {"GlobalAveragePool", check_pool, run_pool},
      {"GlobalMaxPool", check_pool, run_pool},
      {"BatchNormalization", check_batchnorm, run_batchnorm},
      {"Softmax", no_check, run_softmax},
      {"LogSoftmax", no_check, run_softmax},
      {"Relu", check_activation, run_activation},
      {"Sigmoid", check_activation, run_activation},
      {"Tanh", check_activation, run_activation},
      {"Elu", check_activation, run_activation},
      {"Clip", check_activation, run_activation},
      {"Add", no_check, run_binary},
      {"Sub", no_check, run_binary},
      {"Mul", no_check, run_binary},
      {"Gemm", check_gemm, run_gemm},
      {"MatMul", no_check, run_matmul},
  };
  return defs;
}

}  // namespace

const OpDef* find_op(const std::string& op_type) {
  for (const auto& d : table())
    if (op_type == d.op_type) return &d;
  return nullptr;
}

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const auto& d : table()) names.push_back(d.op_type);
  return names;
}

Status require_float(const OpArgs& a, std::initializer_list<size_t> inputs) {
  for (size_t i : inputs) {
    if (a.has(i) && a.in(i).dtype() != DType::kFloat32) {
      return unsupported("{}: input {} is {}; the cuda backend computes in float32", a.node.label(),
                         i, dtype_name(a.in(i).dtype()));
    }
  }
  return Status::Ok();
}

}  // namespace ig::cuda

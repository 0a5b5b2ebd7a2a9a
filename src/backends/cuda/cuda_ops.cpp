#include "backends/cuda/cuda_ops.h"

namespace ig::cuda {

const std::vector<OpDef>& ops() {
  static const std::vector<OpDef> defs = {
      {"", "Conv", 1, kMaxOpset, run_conv, check_conv},
      {"", "MaxPool", 1, kMaxOpset, run_pool, check_pool},
      {"", "AveragePool", 1, kMaxOpset, run_pool, check_pool},
      {"", "GlobalAveragePool", 1, kMaxOpset, run_pool, check_pool},
      {"", "GlobalMaxPool", 1, kMaxOpset, run_pool, check_pool},
      {"", "BatchNormalization", 1, kMaxOpset, run_batchnorm, check_batchnorm},
      {"", "Softmax", 1, kMaxOpset, run_softmax},
      {"", "LogSoftmax", 1, kMaxOpset, run_softmax},
      {"", "Relu", 1, kMaxOpset, run_activation, check_activation},
      {"", "Sigmoid", 1, kMaxOpset, run_activation, check_activation},
      {"", "Tanh", 1, kMaxOpset, run_activation, check_activation},
      {"", "Elu", 1, kMaxOpset, run_activation, check_activation},
      {"", "Clip", 1, kMaxOpset, run_activation, check_activation},
      {"", "Add", 1, kMaxOpset, run_binary},
      {"", "Sub", 1, kMaxOpset, run_binary},
      {"", "Mul", 1, kMaxOpset, run_binary},
      {"", "Gemm", 1, kMaxOpset, run_gemm, check_gemm},
      {"", "MatMul", 1, kMaxOpset, run_matmul},
  };
  return defs;
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

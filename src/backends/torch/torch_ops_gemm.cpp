// Gemm and MatMul. Gemm with transB=1, alpha=beta=1 is nn.Linear's export: at::linear, the call
// nn.Linear makes (addmm with the bias). Other Gemms are at::addmm / at::mm with alpha and beta.
#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

Expected<OpResult> gemm(const OpInputs& x) {
  at::Tensor A = x.at(0);
  at::Tensor B = x.at(1);
  if (A.dim() != 2 || B.dim() != 2) {
    return invalid_argument("{}: Gemm needs 2-D A and B, got rank {} and {}", x.node.label(),
                            A.dim(), B.dim());
  }
  const bool trans_a = x.node.attr_int("transA", 0) != 0;
  const bool trans_b = x.node.attr_int("transB", 0) != 0;
  const double alpha = x.node.attr_float("alpha", 1.0f);
  const double beta = x.node.attr_float("beta", 1.0f);
  if (trans_a) A = A.t();
  const int64_t k = trans_b ? B.size(1) : B.size(0);
  if (A.size(1) != k) {
    return invalid_argument("{}: Gemm inner dimensions differ ({} vs {})", x.node.label(),
                            A.size(1), k);
  }
  const bool has_c = x.has(2);
  if (trans_b && !trans_a && alpha == 1.0 && (beta == 1.0 || !has_c)) {
    const c10::optional<at::Tensor> bias =
        has_c ? c10::optional<at::Tensor>(x.at(2)) : c10::nullopt;
    return one(at::linear(A, B, bias), "aten::linear");
  }
  if (trans_b) B = B.t();
  if (!has_c) return one(alpha == 1.0 ? at::mm(A, B) : at::mm(A, B).mul(alpha), "aten::mm");
  const at::Tensor C = x.at(2).expand({A.size(0), B.size(1)});
  return one(at::addmm(C, A, B, beta, alpha), "aten::addmm");
}

Expected<OpResult> matmul(const OpInputs& x) {
  if (x.at(0).dim() == 0 || x.at(1).dim() == 0) {
    return invalid_argument("{}: MatMul inputs must have rank >= 1", x.node.label());
  }
  return one(at::matmul(x.at(0), x.at(1)), "aten::matmul");
}

}  // namespace

const std::vector<OpDef>& gemm_ops() {
  static const std::vector<OpDef> table = {
      {"", "Gemm", 1, kMaxOpset, gemm, nullptr},
      {"", "MatMul", 1, kMaxOpset, matmul, nullptr},
  };
  return table;
}

}  // namespace ig::torchb

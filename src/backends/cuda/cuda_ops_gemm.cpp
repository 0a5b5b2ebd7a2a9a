// Gemm and MatMul through cuBLAS (cublasSgemm / cublasSgemmStridedBatched). cuBLAS is column-major:
// a row-major [r, c] matrix is its column-major transpose, so Y = A B is computed as Y^T = B^T A^T
// with the operands swapped and nothing copied.
#include <climits>

#include "backends/cuda/cuda_ops.h"
#include "tensor/broadcast.h"

namespace ig::cuda {

namespace {

struct GemmShape {
  int m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
};

Status fits_int(const Node& node, std::initializer_list<int64_t> dims) {
  for (int64_t d : dims)
    if (d > INT_MAX) return unsupported("{}: dimension {} exceeds cuBLAS's int", node.label(), d);
  return Status::Ok();
}

// Row-major Y[i][m, n] = alpha * op(A)[i][m, k] op(B)[i][k, n] + beta * Y[i] for i < batch, the
// operands stride_a and stride_b elements apart.
Status sgemm(Context& c, const GemmShape& g, float alpha, const float* a, const float* b,
             float beta, float* y, int batch, int64_t stride_a, int64_t stride_b) {
  const cublasOperation_t op_a = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int lda = g.trans_a ? g.m : g.k;
  const int ldb = g.trans_b ? g.k : g.n;
  if (batch == 1) {
    return check(c.cublas_api().sgemm(c.blas(), op_b, op_a, g.n, g.m, g.k, &alpha, b, ldb, a, lda,
                                      &beta, y, g.n),
                 "cublasSgemm");
  }
  return check(c.cublas_api().sgemm_strided_batched(c.blas(), op_b, op_a, g.n, g.m, g.k, &alpha, b,
                                                    ldb, stride_b, a, lda, stride_a, &beta, y, g.n,
                                                    static_cast<int64_t>(g.m) * g.n, batch),
               "cublasSgemmStridedBatched");
}

const char* math_note(const Context& c) {
  return c.opt().tf32 ? "cublasSgemm math=tf32" : "cublasSgemm math=pedantic";
}

}  // namespace

Status check_gemm(const Node& node, const Model&) {
  if (node.inputs.size() < 2) return invalid_argument("{}: Gemm needs A and B", node.label());
  return Status::Ok();
}

Expected<OpResult> run_gemm(Context& c, const OpArgs& a) {
  IG_RETURN_IF_ERROR(require_float(a, {0, 1, 2}));
  const TensorInfo& ta = a.in(0);
  const TensorInfo& tb = a.in(1);
  if (ta.rank() != 2 || tb.rank() != 2) {
    return invalid_argument("{}: Gemm needs 2-D A and B, got {} and {}", a.node.label(),
                            shape_to_string(ta.shape()), shape_to_string(tb.shape()));
  }
  GemmShape g;
  g.trans_a = a.node.attr_int("transA", 0) != 0;
  g.trans_b = a.node.attr_int("transB", 0) != 0;
  const int64_t m = ta.dim(g.trans_a ? 1 : 0), k = ta.dim(g.trans_a ? 0 : 1);
  const int64_t kb = tb.dim(g.trans_b ? 1 : 0), n = tb.dim(g.trans_b ? 0 : 1);
  if (k != kb) {
    return invalid_argument("{}: inner dimensions differ ({} and {})", a.node.label(), k, kb);
  }
  IG_RETURN_IF_ERROR(fits_int(a.node, {m, n, k}));
  g.m = static_cast<int>(m), g.n = static_cast<int>(n), g.k = static_cast<int>(k);
  const float alpha = a.node.attr_float("alpha", 1.0f);
  float beta = a.node.attr_float("beta", 1.0f);
  const Shape out = {m, n};
  DeviceTensor yd;
  if (a.has(2) && beta != 0.0f) {
    // C broadcast to Y on the host (pure data movement), then Y = alpha AB + beta Y in cuBLAS,
    // as ONNX Runtime's CUDA provider does.
    IG_ASSIGN_OR_RETURN(const Tensor* tc, a.host(2));
    IG_ASSIGN_OR_RETURN(Shape bs, broadcast_shapes({tc->shape(), out}));
    if (bs != out) {
      return invalid_argument("{}: C {} does not broadcast to {}", a.node.label(),
                              shape_to_string(tc->shape()), shape_to_string(out));
    }
    Tensor yc(DType::kFloat32, out);
    for_each_broadcast<1>(out, {tc->shape()}, [&](int64_t i, const std::array<int64_t, 1>& off) {
      yc.data<float>()[i] = tc->data<float>()[off[0]];
    });
    IG_ASSIGN_OR_RETURN(yd, c.upload(yc));
  } else {
    beta = 0.0f;  // cuBLAS does not read Y when beta is 0
    IG_ASSIGN_OR_RETURN(yd, c.empty(out));
  }
  IG_ASSIGN_OR_RETURN(DeviceTensor ad, a.device(0));
  IG_ASSIGN_OR_RETURN(DeviceTensor bd, a.device(1));
  IG_RETURN_IF_ERROR(sgemm(c, g, alpha, ad.data(), bd.data(), beta, yd.data(), 1, 0, 0));
  return OpResult{yd, math_note(c)};
}

// MatMul for 2-D operands, a batched A times a 2-D B (the batch folds into M), and equal batch
// dims (strided batched). 1-D operands and broadcast batch dims are not mapped.
Expected<OpResult> run_matmul(Context& c, const OpArgs& a) {
  IG_RETURN_IF_ERROR(require_float(a, {0, 1}));
  const TensorInfo& ta = a.in(0);
  const TensorInfo& tb = a.in(1);
  if (ta.rank() < 2 || tb.rank() < 2) {
    return unsupported("{}: MatMul with a 1-D operand is not mapped to cuBLAS", a.node.label());
  }
  const Shape batch_a(ta.shape().begin(), ta.shape().end() - 2);
  const Shape batch_b(tb.shape().begin(), tb.shape().end() - 2);
  const int64_t m = ta.dim(-2), k = ta.dim(-1), n = tb.dim(-1);
  if (tb.dim(-2) != k) {
    return invalid_argument("{}: inner dimensions differ ({} and {})", a.node.label(), k,
                            tb.dim(-2));
  }
  Shape out = batch_a.size() >= batch_b.size() ? batch_a : batch_b;
  out.push_back(m);
  out.push_back(n);
  if (!batch_b.empty() && batch_a != batch_b) {
    return unsupported("{}: MatMul with broadcast batch dims ({} and {}) is not mapped",
                       a.node.label(), shape_to_string(ta.shape()), shape_to_string(tb.shape()));
  }
  const int64_t batch = batch_b.empty() ? 1 : shape_numel(batch_a);
  GemmShape g;
  const int64_t rows = batch_b.empty() ? shape_numel(batch_a) * m : m;
  IG_RETURN_IF_ERROR(fits_int(a.node, {rows, n, k, batch}));
  g.m = static_cast<int>(rows), g.n = static_cast<int>(n), g.k = static_cast<int>(k);
  IG_ASSIGN_OR_RETURN(DeviceTensor ad, a.device(0));
  IG_ASSIGN_OR_RETURN(DeviceTensor bd, a.device(1));
  IG_ASSIGN_OR_RETURN(DeviceTensor yd, c.empty(out));
  IG_RETURN_IF_ERROR(sgemm(c, g, 1.0f, ad.data(), bd.data(), 0.0f, yd.data(),
                           static_cast<int>(batch), m * k, k * n));
  std::string note = math_note(c);
  if (batch > 1) note += " strided-batched";
  return OpResult{yd, note};
}

}  // namespace ig::cuda

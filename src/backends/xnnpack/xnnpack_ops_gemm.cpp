// Gemm and MatMul as XNNPACK's fully_connected_nc: A's rows are the batch, B the weights
// ([N,K] as given, or [K,N] with XNN_FLAG_TRANSPOSE_WEIGHTS), C the per-column bias. XNNPACK
// 2022 has no batched matrix multiply: MatMul's B must be 1-D or 2-D.
#include "backends/xnnpack/xnnpack_ops.h"

namespace ig::xnnpack {

namespace {

struct FcShape {
  int64_t m = 0, k = 0, n = 0;
  bool weights_kn = false;  // B is [K,N] (XNN_FLAG_TRANSPOSE_WEIGHTS), else [N,K]
};

// y[M,N] = a[M,K] * B (+ bias[N]) by one fully connected operator.
Expected<Buffer> fully_connected(Ctx& c, const Node& node, const FcShape& s, Buffer a,
                                 const Tensor& b, const Buffer* bias) {
  const bool half = c.opt.fp16;
  IG_ASSIGN_OR_RETURN(Buffer in, in_precision(c, node, std::move(a), half));
  IG_ASSIGN_OR_RETURN(Buffer kernel, in_precision(c, node, copy_of(b), half));
  Buffer bias_buf;
  if (bias) {
    IG_ASSIGN_OR_RETURN(bias_buf, in_precision(c, node, *bias, half));
  }
  const void* bias_data = bias ? bias_buf.data() : nullptr;
  Buffer y(static_cast<size_t>(s.m * s.n), half);
  const auto k = static_cast<size_t>(s.k), n = static_cast<size_t>(s.n);
  const uint32_t flags = s.weights_kn ? XNN_FLAG_TRANSPOSE_WEIGHTS : 0;
  xnn_operator_t raw = nullptr;
  const xnn_status created =
      half ? xnn_create_fully_connected_nc_f16(k, n, k, n, kernel.data(), bias_data, -INFINITY,
                                               INFINITY, flags, &raw)
           : xnn_create_fully_connected_nc_f32(k, n, k, n, kernel.f32(),
                                               static_cast<const float*>(bias_data), -INFINITY,
                                               INFINITY, flags, &raw);
  IG_RETURN_IF_ERROR(check(created, node, call_name("create", "fully_connected_nc", half)));
  const Operator op(raw);
  const auto batch = static_cast<size_t>(s.m);
  const xnn_status set =
      half ? xnn_setup_fully_connected_nc_f16(op.get(), batch, in.data(), y.data(), c.pool)
           : xnn_setup_fully_connected_nc_f32(op.get(), batch, in.f32(), y.f32(), c.pool);
  IG_RETURN_IF_ERROR(check(set, node, call_name("setup", "fully_connected_nc", half)));
  IG_RETURN_IF_ERROR(run(c, node, op.get()));
  if (!half) return y;
  return to_float(c, node, y);
}

// ---- Gemm ----
Status check_gemm(const Node& n, const Model&) {
  const float alpha = n.attr_float("alpha", 1.0f), beta = n.attr_float("beta", 1.0f);
  if (alpha != 1.0f) {
    return unsupported("{}: Gemm with alpha={}: XNNPACK's fully connected operator has no scale",
                       n.label(), alpha);
  }
  if (beta != 1.0f && n.inputs.size() > 2 && !n.inputs[2].empty()) {
    return unsupported("{}: Gemm with beta={}: XNNPACK adds the bias C unscaled", n.label(), beta);
  }
  return Status::Ok();
}

Expected<OpResult> run_gemm(Ctx& c, const OpInputs& x) {
  IG_RETURN_IF_ERROR(require_float(x));
  IG_RETURN_IF_ERROR(require_nonempty(x));
  const Node& n = x.node;
  const Tensor& A = x.at(0);
  const Tensor& B = x.at(1);
  if (A.rank() != 2 || B.rank() != 2) {
    return invalid_argument("{}: Gemm needs 2-D A and B (A {}, B {})", n.label(), A.describe(),
                            B.describe());
  }
  const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
  FcShape s{ta ? A.dim(1) : A.dim(0), ta ? A.dim(0) : A.dim(1), tb ? B.dim(0) : B.dim(1), !tb};
  if ((tb ? B.dim(1) : B.dim(0)) != s.k) {
    return invalid_argument("{}: A {} and B {} do not multiply", n.label(), A.describe(),
                            B.describe());
  }
  // A transposed is copied: XNNPACK reads the batch as rows.
  Buffer a = copy_of(A);
  if (ta) {
    const float* src = A.data<float>();
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.k; ++j) a.f32()[i * s.k + j] = src[j * s.m + i];
    }
  }
  Buffer bias;
  const bool has_c = x.has(2);
  if (has_c) {
    const Tensor& C = x.at(2);
    const bool per_column = C.numel() == s.n && (C.rank() == 1 || (C.rank() == 2 && C.dim(0) == 1));
    if (C.numel() == 1) {
      bias = Buffer(static_cast<size_t>(s.n), false);
      std::fill(bias.f32(), bias.f32() + s.n, C.data<float>()[0]);
    } else if (per_column) {
      bias = copy_of(C);
    } else {
      return unsupported(
          "{}: C {} is not one bias per output column ([{}] or [1,{}]), the only bias XNNPACK's "
          "fully connected operator adds",
          n.label(), C.describe(), s.n, s.n);
    }
  }
  IG_ASSIGN_OR_RETURN(Buffer y, fully_connected(c, n, s, std::move(a), B, has_c ? &bias : nullptr));
  return OpResult{tensor_of(y, {s.m, s.n}),
                  note_of("fully_connected_nc", c.opt.fp16, ta ? "A transposed" : "")};
}

// ---- MatMul: A's leading dims are the batch, B the weights ----
Expected<OpResult> run_matmul(Ctx& c, const OpInputs& x) {
  IG_RETURN_IF_ERROR(require_float(x));
  IG_RETURN_IF_ERROR(require_nonempty(x));
  const Node& n = x.node;
  const Tensor& A = x.at(0);
  const Tensor& B = x.at(1);
  if (A.rank() < 1 || B.rank() < 1) {
    return invalid_argument("{}: MatMul operands must not be scalars", n.label());
  }
  if (B.rank() > 2) {
    return unsupported("{}: B {} is batched; XNNPACK 2022 has no batched matrix multiply",
                       n.label(), B.describe());
  }
  FcShape s;
  s.k = A.dim(-1);
  s.m = A.numel() / s.k;
  s.n = B.rank() == 2 ? B.dim(1) : 1;
  s.weights_kn = true;
  if (B.dim(0) != s.k) {
    return invalid_argument("{}: {} and {} do not multiply", n.label(), A.describe(), B.describe());
  }
  Shape out(A.shape().begin(), A.shape().end() - 1);
  if (B.rank() == 2) out.push_back(s.n);
  IG_ASSIGN_OR_RETURN(Buffer y, fully_connected(c, n, s, copy_of(A), B, nullptr));
  return OpResult{tensor_of(y, out), note_of("fully_connected_nc", c.opt.fp16)};
}

}  // namespace

const std::vector<OpDef>& gemm_ops() {
  static const std::vector<OpDef> kOps = {
      {"", "Gemm", 1, kMaxOpset, run_gemm, check_gemm},
      {"", "MatMul", 1, kMaxOpset, run_matmul},
  };
  return kOps;
}

}  // namespace ig::xnnpack

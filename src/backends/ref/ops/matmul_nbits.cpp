// MatMulNBits (com.microsoft), as ONNX Runtime's contrib schema defines it: Y = A x W^T (+ bias)
// with W [N, K] block-quantized along K. B is uint8 [N, k_blocks, blob_size], k_blocks =
// ceil(K / block_size), blob_size = block_size * bits / 8, codes packed low bits first; each block
// has a scale and a zero point: uint8 codes packed like B (N rows of ceil(k_blocks * bits / 8)
// bytes; 2^(bits - 1) when absent) or values of the scales' type. W = (code - zero_point) * scale,
// in the compute type, then the product follows the platform's numerics like MatMul.
// accuracy_level asks ONNX Runtime for a faster, less exact computation (4: A quantized to int8);
// ref computes the operator's definition whatever it says. g_idx (int32 [K], deprecated: act-order
// models) names each k's block instead of k / block_size.
#include "backends/ref/nn_util.h"
#include "backends/ref/numerics/float_gemm.h"

namespace ig {
namespace {

struct NBitsShape {
  int64_t k = 0, n = 0, bits = 0, block = 0, k_blocks = 0, blob = 0;
};

Expected<NBitsShape> nbits_shape(const KernelContext& ctx) {
  NBitsShape s;
  s.k = ctx.node.attr_int("K", 0);
  s.n = ctx.node.attr_int("N", 0);
  s.bits = ctx.node.attr_int("bits", 4);
  s.block = ctx.node.attr_int("block_size", 0);
  if (s.bits != 2 && s.bits != 4 && s.bits != 8)
    return ctx.fail("bits {} is not 2, 4 or 8", s.bits);
  IG_RETURN_IF_ERROR(expect_quant_block_size(ctx, s.block));
  if (s.k <= 0 || s.n <= 0) return ctx.fail("K {} and N {} must be positive", s.k, s.n);
  s.k_blocks = (s.k + s.block - 1) / s.block;
  s.blob = s.block * s.bits / 8;
  return s;
}

// The code of W[n, k] and its block's zero point.
struct NBitsCodes {
  const uint8_t* b;
  const uint8_t* zp_packed;  // null: none or float zero points
  NBitsShape s;
  int64_t code(int64_t n, int64_t k) const {
    return packed_code(b + (n * s.k_blocks + k / s.block) * s.blob, k % s.block, s.bits);
  }
  int64_t packed_zero_point(int64_t n, int64_t block) const {
    if (zp_packed == nullptr) return int64_t{1} << (s.bits - 1);
    return packed_code(zp_packed + n * ((s.k_blocks * s.bits + 7) / 8), block, s.bits);
  }
};

Status matmul_nbits(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Tensor& scales = ctx.input(2);
  IG_ASSIGN_OR_RETURN(const NBitsShape s, nbits_shape(ctx));
  if (a.rank() < 1 || a.dim(-1) != s.k)
    return ctx.fail("A {} must end in K = {}", a.describe(), s.k);
  if (b.dtype() != DType::kUInt8 || b.numel() != s.n * s.k_blocks * s.blob) {
    return ctx.fail("B {} must be uint8 [N={}, k_blocks={}, blob_size={}]", b.describe(), s.n,
                    s.k_blocks, s.blob);
  }
  if (scales.dtype() != a.dtype() || scales.numel() != s.n * s.k_blocks) {
    return ctx.fail("scales {} must be {} with N * k_blocks = {} values", scales.describe(),
                    dtype_name(a.dtype()), s.n * s.k_blocks);
  }
  const Tensor* zp = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  const bool zp_packed = zp && zp->dtype() == DType::kUInt8;
  if (zp && zp_packed && zp->numel() != s.n * ((s.k_blocks * s.bits + 7) / 8)) {
    return ctx.fail("zero_points {} must hold N * ceil(k_blocks * bits / 8) = {} packed bytes",
                    zp->describe(), s.n * ((s.k_blocks * s.bits + 7) / 8));
  }
  if (zp && !zp_packed && (zp->dtype() != a.dtype() || zp->numel() != s.n * s.k_blocks)) {
    return ctx.fail("zero_points {} must be uint8 (packed) or {} with N * k_blocks values",
                    zp->describe(), dtype_name(a.dtype()));
  }
  const Tensor* g_idx = ctx.has_input(4) ? &ctx.input(4) : nullptr;
  if (g_idx && (g_idx->dtype() != DType::kInt32 || g_idx->numel() != s.k))
    return ctx.fail("g_idx {} must be int32 [K = {}]", g_idx->describe(), s.k);
  for (int64_t k = 0; g_idx && k < s.k; ++k) {
    const int32_t blk = g_idx->data<int32_t>()[k];
    if (blk < 0 || blk >= s.k_blocks)
      return ctx.fail("g_idx[{}] = {} is not one of the {} blocks", k, blk, s.k_blocks);
  }
  const Tensor* bias = ctx.has_input(5) ? &ctx.input(5) : nullptr;
  if (bias && (bias->dtype() != a.dtype() || bias->numel() != s.n))
    return ctx.fail("bias {} must be {} with N = {} values", bias->describe(),
                    dtype_name(a.dtype()), s.n);
  const NBitsCodes codes{b.data<uint8_t>(), zp_packed ? zp->data<uint8_t>() : nullptr, s};
  Shape out_shape = a.shape();
  out_shape.back() = s.n;
  const int64_t m = a.numel() / s.k;
  return dispatch_float(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* ps = scales.data<T>();
    const T* pz = zp && !zp_packed ? zp->data<T>() : nullptr;
    // W^T [K, N]: the B operand of the GEMM.
    std::vector<C> wt(static_cast<size_t>(s.k * s.n));
    for (int64_t n = 0; n < s.n; ++n) {
      for (int64_t k = 0; k < s.k; ++k) {
        const int64_t blk = g_idx ? g_idx->data<int32_t>()[k] : k / s.block;
        const C scale = to_compute(ps[n * s.k_blocks + blk]);
        const C zero = pz ? to_compute(pz[n * s.k_blocks + blk])
                          : static_cast<C>(codes.packed_zero_point(n, blk));
        wt[static_cast<size_t>(k * s.n + n)] = (static_cast<C>(codes.code(n, k)) - zero) * scale;
      }
    }
    const ComputeView<T> va(a.data<T>(), a.numel());
    std::vector<C> out(static_cast<size_t>(m * s.n));
    float_gemm<C>(ctx.numerics, m, s.n, s.k, va.data(), s.k, 1, wt.data(), s.n, out.data(), s.n);
    T* py = ctx.output(0, a.dtype(), out_shape).template data<T>();
    const T* pb = bias ? bias->data<T>() : nullptr;
    for (int64_t i = 0; i < m * s.n; ++i) {
      C v = out[static_cast<size_t>(i)];
      if (pb) v += to_compute(pb[i % s.n]);
      py[i] = from_compute<T>(v);
    }
    return Status::Ok();
  });
}

IG_REGISTER_KERNEL("com.microsoft", "MatMulNBits", 1, kMaxOpset, matmul_nbits);

}  // namespace
}  // namespace ig

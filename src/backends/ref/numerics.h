// Numerics policy of the reference backend: every cause of deviation the papers name is a knob
// (`ref:key=value,...`). Defaults reproduce plain sequential arithmetic in the model's types.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "backends/ref/numerics/matrix_unit.h"
#include "backends/ref/numerics/ordered_gemm.h"
#include "core/dtype.h"

namespace ig {

enum class ConvAlgorithm { kDirect, kIm2col, kReducedLowering, kWinograd2, kWinograd4, kFft };
enum class NanMode { kPropagate, kIgnore };  // IEEE maximum vs maxNum for Max/Min/MaxPool/Relu/Clip
enum class MathLib { kLibm, kSleefU10, kSleefU35, kFast };

struct Numerics {
  // Compute precision for floating tensors: fp32 runs the model as written; fp64/fp16/bf16 convert
  // every floating tensor of the model (initializers, inputs, constants, casts) to that type.
  DType dtype = DType::kFloat32;
  // Accumulator width where hardware differs from the storage type (fp16 storage, fp32 sums).
  DType accdtype = DType::kUndefined;  // undefined: fp32 for fp16/bf16, else dtype
  AccumulationPolicy acc;              // order (seq, pairwise, lanesN, blockK), split, fma
  bool exact = false;                  // acc=exact: compensated (double-double) dot products
  ConvAlgorithm conv = ConvAlgorithm::kDirect;
  bool ftz = false;  // flush denormals to zero on operator inputs and outputs
  NanMode nan = NanMode::kPropagate;
  MathLib math = MathLib::kLibm;
  // BatchNormalization's formula. onnx: scale * (x - mean) / sqrt(var + eps) + B, as the spec
  // writes it. folded: (x - mean) * f + B with f = scale / sqrt(var + eps) once per channel, as
  // oneDNN computes it. affine: x * f + (B - mean * f) with f = (1 / sqrt(var + eps)) * scale, as
  // ONNX Runtime's CPU kernel computes it. With fma=on the final multiply-add is fused.
  enum class BnFormula { kOnnx, kFolded, kAffine };
  BnFormula bn = BnFormula::kOnnx;
  // How integer (int8) kernels compute, the way accelerators' libraries do it (qdq=int runs each
  // DequantizeLinear -> Conv -> [Relu] -> QuantizeLinear group as one QLinearConv, as ONNX
  // Runtime, oneDNN and XNNPACK fuse it; qdq=float follows the spec's float semantics).
  struct Quant {
    bool integer_groups = false;  // qdq=int
    // madd=sat16: u8 x s8 products summed in pairs along the reduction (adjacent input channels
    // at one kernel tap) and each pair saturated to int16, as x86's vpmaddubsw does without VNNI.
    bool saturate_pairs = false;
    // wbits=7: weights halved and rounded to even before the sum, the sum doubled back before
    // the int32 bias joins it: oneDNN's weight scale adjustment on x86 without VNNI (s8 data on
    // avx2), which keeps pair sums within int16 (ONNX Runtime's reduce_range makes the same trade
    // in the model).
    bool half_weights = false;
    bool gemmlowp = false;  // requant=gemmlowp: Q31 multiplier and shift, instead of a float scale
    // requant=float-zp: the output zero point added in float before rounding, as oneDNN does.
    bool zero_point_in_float = false;
    bool round_away = false;  // qround=away: float requantization rounds half away from zero
  };
  Quant quant;
  // A real BLAS for fp32 and fp64 GEMM (the `blas` platform): C[MxN] = A[MxK] * B[KxN], row-major
  // with leading dimensions. Empty: our own loops in the stated order. Honoured by MatMul, Gemm and
  // Conv with conv=im2col.
  template <typename T>
  using GemmFn = std::function<void(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda,
                                    const T* B, int64_t ldb, T* C, int64_t ldc)>;
  GemmFn<float> sgemm;
  GemmFn<double> dgemm;
  // mma=PRESET: MatMul, Gemm and Conv (direct, im2col or relo) computed by an emulated matrix unit.
  std::shared_ptr<const MatrixUnit> mma;

  // The default policy (sequential, no FMA, no narrow accumulator): fast paths may apply.
  bool plain_accumulation() const {
    return !exact && !acc.fma && acc.rounding == AccRounding::kNone &&
           acc.order.kind == ReductionOrder::Kind::kSeq && acc.order.split <= 1;
  }
};

// Parses the ref backend's options (spec keys). Unknown keys or values are errors listing the
// valid ones.
Expected<Numerics> parse_numerics(const std::map<std::string, std::string>& options);
// The documented knobs, for `infergap platforms` and error messages: key -> "v1|v2|... (default)".
const std::map<std::string, std::string>& numerics_knobs();

const char* conv_algorithm_name(ConvAlgorithm a);

// The numerics of the node being executed on this thread, set by the executor around each kernel,
// so shared helpers deep inside kernels (folds, dot products) follow the platform's policy.
const Numerics& current_numerics();
class NumericsScope {
 public:
  explicit NumericsScope(const Numerics& n);
  ~NumericsScope();
  NumericsScope(const NumericsScope&) = delete;
  NumericsScope& operator=(const NumericsScope&) = delete;

 private:
  const Numerics* previous_;
};

}  // namespace ig

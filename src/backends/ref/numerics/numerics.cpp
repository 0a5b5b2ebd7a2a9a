#include "backends/ref/numerics.h"

namespace ig {

namespace {
thread_local const Numerics* t_current = nullptr;

template <typename E>
Expected<E> pick(const std::string& key, const std::string& value,
                 const std::map<std::string, E>& choices) {
  auto it = choices.find(value);
  if (it != choices.end()) return it->second;
  std::string valid;
  for (const auto& [k, _] : choices) valid += (valid.empty() ? "" : ", ") + k;
  return invalid_argument("{}={} is not valid (valid: {})", key, value, valid);
}
}  // namespace

const Numerics& current_numerics() {
  static const Numerics kDefault;
  return t_current ? *t_current : kDefault;
}

NumericsScope::NumericsScope(const Numerics& n) : previous_(t_current) { t_current = &n; }
NumericsScope::~NumericsScope() { t_current = previous_; }

const char* conv_algorithm_name(ConvAlgorithm a) {
  switch (a) {
    case ConvAlgorithm::kDirect:
      return "direct";
    case ConvAlgorithm::kIm2col:
      return "im2col";
    case ConvAlgorithm::kReducedLowering:
      return "relo";
    case ConvAlgorithm::kWinograd2:
      return "winograd2";
    case ConvAlgorithm::kWinograd4:
      return "winograd4";
    case ConvAlgorithm::kFft:
      return "fft";
  }
  return "?";
}

const std::map<std::string, std::string>& numerics_knobs() {
  static const std::map<std::string, std::string> kKnobs = [] {
    std::map<std::string, std::string> knobs = {
        {"dtype", "fp32|fp64|fp16|bf16 (fp32): compute precision of floating tensors"},
        {"accdtype", "fp16|bf16|fp32|fp64 (fp32 for fp16/bf16, else dtype): accumulator precision"},
        {"acc",
         "seq|pairwise|lanes2|lanes4|lanes8|lanes16|lanes32|block<K>|exact (seq): accumulation "
         "order"},
        {"fma", "on|off (off): fused multiply-add in dot products"},
        {"split", "1..1024 (1): reduction axis cut into N parts summed in order"},
        {"conv",
         "direct|im2col|relo|winograd2|winograd4|fft (direct): convolution algorithm (relo: terms "
         "in (kernel column, kernel row, channel) order, oneDNN's AMX kernel for few channels)"},
        {"ftz", "on|off (off): flush denormals to zero on operator inputs and outputs"},
        {"nan", "propagate|ignore (propagate): NaN in Max, Min, MaxPool, Relu, Clip"},
        {"bn",
         "onnx|folded|affine (onnx): BatchNormalization as scale*(x-mean)/sqrt(var+eps)+B, as "
         "(x-mean)*f+B with f=scale/sqrt(var+eps) (oneDNN), or as x*f+(B-mean*f) (ONNX Runtime); "
         "fma=on fuses the last multiply-add"},
        {"math",
         "libm|sleef-u10|sleef-u35|fast (libm): exp, log, tanh, erf, sigmoid, pow and what builds "
         "on them (sleef-u35 has u35 log and tanh only; exp, expm1, log1p, erf, pow stay u10)"},
        {"qdq",
         "float|int (float): DequantizeLinear -> Conv/Gemm/MatMul -> [Relu] -> QuantizeLinear as "
         "the "
         "spec's float arithmetic, or as one integer kernel (int32 sums, requantized), as "
         "libraries fuse it"},
        {"madd",
         "exact|sat16 (exact): integer kernels sum u8 x s8 products exactly, or in pairs each "
         "saturated to int16 (x86 vpmaddubsw without VNNI)"},
        {"wbits",
         "8|7 (8): integer kernels use the weights as stored, or halved to 7 bits and the sum "
         "doubled back (oneDNN without VNNI)"},
        {"requant",
         "float|float-zp|gemmlowp (float): integer kernels requantize by a float scale and add "
         "the zero point after rounding (ONNX Runtime) or before it (oneDNN), or by a Q31 "
         "multiplier and shift (gemmlowp, TFLite)"},
        {"qround", "even|away (even): float requantization rounds ties to even or away from zero"},
    };
    knobs.insert(mma_knobs().begin(), mma_knobs().end());
    return knobs;
  }();
  return kKnobs;
}

Expected<Numerics> parse_numerics(const std::map<std::string, std::string>& options) {
  Numerics n;
  const std::map<std::string, DType> dtypes = {{"fp32", DType::kFloat32},
                                               {"fp64", DType::kFloat64},
                                               {"fp16", DType::kFloat16},
                                               {"bf16", DType::kBFloat16}};
  const std::map<std::string, bool> on_off = {{"on", true}, {"off", false}};
  bool has_mma = false;
  for (const auto& [key, value] : options) {
    if (is_mma_key(key)) {
      has_mma = true;
    } else if (key == "dtype") {
      IG_ASSIGN_OR_RETURN(n.dtype, pick(key, value, dtypes));
    } else if (key == "accdtype") {
      IG_ASSIGN_OR_RETURN(n.accdtype, pick(key, value, dtypes));
    } else if (key == "acc") {
      if (value == "exact") {
        n.exact = true;
      } else {
        IG_ASSIGN_OR_RETURN(ReductionOrder order, parse_reduction_order(value));
        order.split = n.acc.order.split;
        n.acc.order = order;
      }
    } else if (key == "fma") {
      IG_ASSIGN_OR_RETURN(n.acc.fma, pick(key, value, on_off));
    } else if (key == "split") {
      int split = 0;
      if (value.find_first_not_of("0123456789") == std::string::npos && value.size() <= 4)
        split = std::stoi(value);
      if (split < 1 || split > 1024)
        return invalid_argument("split={} is not valid (valid: 1..1024)", value);
      n.acc.order.split = split;
    } else if (key == "conv") {
      IG_ASSIGN_OR_RETURN(n.conv, pick(key, value,
                                       std::map<std::string, ConvAlgorithm>{
                                           {"direct", ConvAlgorithm::kDirect},
                                           {"im2col", ConvAlgorithm::kIm2col},
                                           {"relo", ConvAlgorithm::kReducedLowering},
                                           {"winograd2", ConvAlgorithm::kWinograd2},
                                           {"winograd4", ConvAlgorithm::kWinograd4},
                                           {"fft", ConvAlgorithm::kFft}}));
    } else if (key == "ftz") {
      IG_ASSIGN_OR_RETURN(n.ftz, pick(key, value, on_off));
    } else if (key == "nan") {
      IG_ASSIGN_OR_RETURN(n.nan,
                          pick(key, value,
                               std::map<std::string, NanMode>{{"propagate", NanMode::kPropagate},
                                                              {"ignore", NanMode::kIgnore}}));
    } else if (key == "bn") {
      IG_ASSIGN_OR_RETURN(n.bn, pick(key, value,
                                     std::map<std::string, Numerics::BnFormula>{
                                         {"onnx", Numerics::BnFormula::kOnnx},
                                         {"folded", Numerics::BnFormula::kFolded},
                                         {"affine", Numerics::BnFormula::kAffine}}));
    } else if (key == "math") {
      IG_ASSIGN_OR_RETURN(n.math,
                          pick(key, value,
                               std::map<std::string, MathLib>{{"libm", MathLib::kLibm},
                                                              {"sleef-u10", MathLib::kSleefU10},
                                                              {"sleef-u35", MathLib::kSleefU35},
                                                              {"fast", MathLib::kFast}}));
    } else if (key == "qdq") {
      IG_ASSIGN_OR_RETURN(
          n.quant.integer_groups,
          pick(key, value, std::map<std::string, bool>{{"float", false}, {"int", true}}));
    } else if (key == "madd") {
      IG_ASSIGN_OR_RETURN(
          n.quant.saturate_pairs,
          pick(key, value, std::map<std::string, bool>{{"exact", false}, {"sat16", true}}));
    } else if (key == "wbits") {
      IG_ASSIGN_OR_RETURN(n.quant.half_weights,
                          pick(key, value, std::map<std::string, bool>{{"8", false}, {"7", true}}));
    } else if (key == "requant") {
      IG_ASSIGN_OR_RETURN(
          const int requant,
          pick(key, value,
               std::map<std::string, int>{{"float", 0}, {"float-zp", 1}, {"gemmlowp", 2}}));
      n.quant.zero_point_in_float = requant == 1;
      n.quant.gemmlowp = requant == 2;
    } else if (key == "qround") {
      IG_ASSIGN_OR_RETURN(
          n.quant.round_away,
          pick(key, value, std::map<std::string, bool>{{"even", false}, {"away", true}}));
    } else {
      std::string valid;
      for (const auto& [k, _] : numerics_knobs()) valid += (valid.empty() ? "" : ", ") + k;
      return invalid_argument("unknown key '{}' (valid: {})", key, valid);
    }
  }
  if (n.exact && (n.acc.fma || n.acc.order.kind != ReductionOrder::Kind::kSeq)) {
    return invalid_argument("acc=exact cannot be combined with fma or another order");
  }
  if (has_mma) {
    IG_ASSIGN_OR_RETURN(MatrixUnit unit, parse_matrix_unit(options));
    if (n.dtype == DType::kFloat64 || n.exact || !n.plain_accumulation() ||
        (n.conv != ConvAlgorithm::kDirect && n.conv != ConvAlgorithm::kIm2col &&
         n.conv != ConvAlgorithm::kReducedLowering)) {
      return invalid_argument(
          "mma={} fixes how MatMul, Gemm and Conv sum: it cannot be combined with dtype=fp64, "
          "acc, fma, split or conv={}",
          unit.preset, conv_algorithm_name(n.conv));
    }
    n.mma = std::make_shared<const MatrixUnit>(std::move(unit));
  }
  if (n.accdtype == DType::kUndefined) {
    n.accdtype =
        (n.dtype == DType::kFloat16 || n.dtype == DType::kBFloat16) ? DType::kFloat32 : n.dtype;
  }
  if (n.accdtype == DType::kFloat16) n.acc.rounding = AccRounding::kFp16;
  if (n.accdtype == DType::kBFloat16) n.acc.rounding = AccRounding::kBf16;
  return n;
}

}  // namespace ig

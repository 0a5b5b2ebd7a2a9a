#include "analysis/explain_space.h"

#include <set>

namespace ig {

namespace {

const std::set<std::string> kReducing = {"Conv",
                                         "ConvTranspose",
                                         "Gemm",
                                         "MatMul",
                                         "AveragePool",
                                         "GlobalAveragePool",
                                         "ReduceSum",
                                         "ReduceMean",
                                         "ReduceSumSquare",
                                         "ReduceL2",
                                         "ReduceL1",
                                         "ReduceLogSumExp",
                                         "Softmax",
                                         "LogSoftmax",
                                         "LayerNormalization",
                                         "InstanceNormalization",
                                         "GroupNormalization",
                                         "LpNormalization",
                                         "Einsum",
                                         "ConvInteger",
                                         "MatMulInteger",
                                         "LRN"};
const std::set<std::string> kTranscendental = {"Exp",
                                               "Log",
                                               "Tanh",
                                               "Sigmoid",
                                               "Erf",
                                               "Pow",
                                               "Softmax",
                                               "LogSoftmax",
                                               "Gelu",
                                               "Softplus",
                                               "Elu",
                                               "Selu",
                                               "Celu",
                                               "Mish",
                                               "Sin",
                                               "Cos",
                                               "Tan",
                                               "Asin",
                                               "Acos",
                                               "Atan",
                                               "Sinh",
                                               "Cosh",
                                               "Asinh",
                                               "Acosh",
                                               "Atanh",
                                               "HardSwish",
                                               "ReduceLogSumExp",
                                               "LayerNormalization",
                                               "Sqrt",
                                               "Reciprocal"};

const std::vector<std::string> kOrders = {"pairwise", "lanes2",   "lanes4",  "lanes8",
                                          "lanes16",  "lanes32",  "block16", "block32",
                                          "block64",  "block128", "block256"};

const std::set<std::string> kQuantized = {"QuantizeLinear", "DequantizeLinear", "QLinearConv",
                                          "QLinearMatMul",  "ConvInteger",      "MatMulInteger"};

// Integer kernels as the libraries build them, one trait each, then the pairs seen in practice:
// ONNX Runtime (MLAS) on x86 without VNNI saturates pairs; oneDNN there halves the weights.
const std::vector<Knobs> kIntegerKernels = {
    {{"qdq", "int"}},
    {{"qdq", "int"}, {"madd", "sat16"}},
    {{"qdq", "int"}, {"wbits", "7"}},
    {{"qdq", "int"}, {"requant", "gemmlowp"}},
    {{"qdq", "int"}, {"qround", "away"}},
    {{"qdq", "int"}, {"requant", "float-zp"}},
    {{"qdq", "int"}, {"madd", "sat16"}, {"requant", "float-zp"}},
    {{"qdq", "int"}, {"madd", "sat16"}, {"requant", "gemmlowp"}},
    {{"qdq", "int"}, {"wbits", "7"}, {"qround", "away"}},
};

}  // namespace

NodeTraits& NodeTraits::operator|=(const NodeTraits& o) {
  reduces |= o.reduces;
  convolution |= o.convolution;
  transcendental |= o.transcendental;
  batch_norm |= o.batch_norm;
  has_nan |= o.has_nan;
  has_denormal |= o.has_denormal;
  quantized |= o.quantized;
  return *this;
}

NodeTraits node_traits(const std::string& op_type) {
  NodeTraits t;
  t.quantized = kQuantized.count(op_type) != 0;
  t.convolution = op_type == "Conv";
  t.reduces = kReducing.count(op_type) != 0;
  t.transcendental = kTranscendental.count(op_type) != 0;
  t.batch_norm = op_type == "BatchNormalization";
  return t;
}

std::vector<Knobs> single_knob_candidates(const NodeTraits& t) {
  std::vector<Knobs> out = {{}};
  if (t.quantized) out.insert(out.end(), kIntegerKernels.begin(), kIntegerKernels.end());
  if (t.reduces) {
    for (const auto& o : kOrders) out.push_back({{"acc", o}});
    for (const char* s : {"2", "3", "4", "8"}) out.push_back({{"split", s}});
  }
  out.push_back({{"fma", "on"}});
  if (t.convolution) {
    for (const char* c : {"im2col", "winograd2", "winograd4", "fft"}) out.push_back({{"conv", c}});
  }
  if (t.transcendental) {
    for (const char* m : {"sleef-u10", "sleef-u35", "fast"}) out.push_back({{"math", m}});
  }
  if (t.batch_norm) {
    for (const char* form : {"folded", "affine"}) {
      out.push_back({{"bn", form}});
      out.push_back({{"bn", form}, {"fma", "on"}});
    }
  }
  if (t.has_denormal) out.push_back({{"ftz", "on"}});
  if (t.has_nan) out.push_back({{"nan", "ignore"}});
  // Wider arithmetic rounded once at the end: "precision".
  out.push_back({{"dtype", "fp64"}});
  out.push_back({{"acc", "exact"}});
  return out;
}

std::map<std::string, std::vector<std::string>> combinable_knobs(const NodeTraits& t) {
  std::map<std::string, std::vector<std::string>> k;
  k["fma"] = {"off", "on"};
  if (t.batch_norm) k["bn"] = {"onnx", "folded", "affine"};
  if (!t.reduces) return k;
  k["acc"] = {"seq"};
  k["acc"].insert(k["acc"].end(), kOrders.begin(), kOrders.end());
  k["split"] = {"1", "2", "3", "4", "8"};
  if (t.convolution) k["conv"] = {"direct", "im2col"};
  if (t.transcendental) k["math"] = {"libm", "sleef-u10", "sleef-u35", "fast"};
  return k;
}

std::string ref_spec(const Knobs& k) {
  std::string s = "ref";
  char sep = ':';
  for (const auto& [key, value] : k) {
    s += sep + key + "=" + value;
    sep = ',';
  }
  return s;
}

}  // namespace ig

// The emulator configurations `explain` tries for one node, in the order worth trying: the
// reference's own order first, then one knob changed at a time (each a cause the papers name),
// then combinations of the knobs that matter for reductions (order x FMA x split x algorithm),
// the most promising first. Pruned by operator: a Relu has no accumulation order to vary. The
// values come from the emulator's binding (platform/bindings/ref.cpp), never typed here.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ig {

using Knobs = std::map<std::string, std::string>;  // ref spec options, e.g. {acc: lanes8}

// What the node's operator lets vary, from its op type and its inputs.
struct NodeTraits {
  bool reduces = false;         // a sum over a reduction axis (Conv, Gemm, MatMul, pools, ...)
  bool convolution = false;     // Conv: the conv algorithm matters
  bool transcendental = false;  // exp, log, tanh, erf, ... : the math library matters
  bool batch_norm = false;      // BatchNormalization: its formula (bn=folded) matters
  bool has_nan = false;         // an input holds NaN: NaN handling matters
  bool has_denormal = false;    // an input holds denormals: flushing matters
  // Quantized arithmetic (QuantizeLinear/DequantizeLinear groups, QLinear*, *Integer): the
  // integer-kernel knobs matter (qdq, madd, wbits, requant, qround).
  bool quantized = false;
  // Conv, MatMul, Gemm: what a matrix unit computes (the mma presets matter).
  bool matrix_product = false;
  // The reference misses the platform by more than fp32 arithmetic could (an fp32 output with
  // fewer than 16 mantissa bits agreeing), or the output is narrower than fp32: operands read in
  // fp16, bf16, tf32 or fp8, as matrix units read them. Known after the reference trial.
  bool reduced_precision = false;
  NodeTraits& operator|=(const NodeTraits& o);
};
NodeTraits node_traits(const std::string& op_type);

// Stage 1: the reference, then every single-knob change that can matter for the node, as the
// emulator's binding lists them (platform/knobs.h registered_trials).
std::vector<Knobs> single_knob_candidates(const NodeTraits& t);
// The values stage 2 combines per knob (the emulator's knob table, KnobSearch); the stage-1
// results rank them.
std::map<std::string, std::vector<std::string>> combinable_knobs(const NodeTraits& t);
// Whether `trait` is a trait name a knob's search or a trial may name: reduces, convolution,
// transcendental, batch-norm, nan, denormal, quantized, matrix-product, reduced-precision.
bool is_search_trait(const std::string& trait);

// "ref:acc=lanes8,fma=on" ("ref" for no knobs).
std::string ref_spec(const Knobs& k);

}  // namespace ig

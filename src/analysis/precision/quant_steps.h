// Errors of quantized values in quantization steps (docs/ORACLE.md, "Quantized models"). A value
// that went through QuantizeLinear sits on a grid: two platforms (or a platform and the oracle)
// differ there by whole steps, which in ULPs or remaining precision reads as an enormous error.
// So for
//   - integer tensors (int8, uint8, int16, uint16, int32: QuantizeLinear, QLinearConv, ...), one
//     step is 1;
//   - float outputs of DequantizeLinear, one step is the node's scale (per axis when the scale is),
//     read from the model's initializers;
// the error is counted in steps: |a - b| / step per element.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "analysis/compare/eqc.h"
#include "model/graph.h"

namespace ig {

// Where a quantized value is born (oracle_origins.h, origins.h): with every input within
// kStepsQuietInput steps, an output kStepsBornMax steps off somewhere or a step off in more than
// kStepsBornShare of its elements.
inline constexpr double kStepsBornMax = 2;
inline constexpr double kStepsBornShare = 1e-3;
inline constexpr double kStepsQuietInput = 0.5;

// How one value of a graph is quantized.
struct QuantStep {
  bool integer = false;  // an integer tensor: a step is 1 in its own units
  // The real size of a step: DequantizeLinear's scale for its output, QuantizeLinear's (or a
  // QLinear op's output scale) for its integer output; empty when unknown. One per tensor, or one
  // per index along `axis`.
  std::vector<double> scales;
  int64_t axis = 1;
  // The step of element i of a tensor of `shape` in the value's units (1 for integers).
  double step_at(const Shape& shape, int64_t i) const;
  // In real units (scales), for measuring a float value that is not quantized in this grid's
  // steps: the scale of element i where `shape` allows per-axis scales, else the smallest; 0 when
  // no scale is known.
  double real_step_at(const Shape& shape, int64_t i) const;
};

// value -> how it is quantized, for every DequantizeLinear output with a constant scale and every
// QuantizeLinear / QLinearConv / QLinearMatMul output (integer).
using QuantIndex = std::map<std::string, QuantStep>;
QuantIndex quant_index(const Graph& graph);

// The index of a case's model: loaded once per model and process from CaseData::model_path (only
// for models with quantization nodes); empty when the file is gone.
std::shared_ptr<const QuantIndex> quant_index_of(const CaseData& c);
// Sets the index of model `model_hash` (tests, and callers that hold the model already).
void remember_quant_index(const std::string& model_hash, QuantIndex index);

// How a value is quantized: its entry in the index, or an integer step for an integer tensor the
// index does not know; nullopt for a float value that is not the output of a DequantizeLinear.
std::optional<QuantStep> quant_step_of(const QuantIndex& index, const std::string& value,
                                       DType dtype);

// Two tensors of one shape compared in steps. An element counts as a step off when it is at least
// one step off; ratios within 1e-3 of a whole number of steps are that number (a grid difference
// in fp32 is not exactly k * scale).
struct StepsOff {
  double step = 1;         // the step (the smallest, with per-axis scales)
  double steps_max = 0;    // max |a - b| / step (+inf where one side is not finite)
  double steps_share = 0;  // share of elements >= 1 step off
  int64_t stepped = 0;     // elements >= 1 step off
  int64_t differing = 0;   // elements whose values differ at all
  int64_t elements = 0;
};

// An output off by steps of its own (the rule above): kStepsBornMax steps somewhere, or a step
// off in more than kStepsBornShare of its elements.
inline bool makes_steps(const StepsOff& s) {
  return s.steps_max >= kStepsBornMax || s.steps_share > kStepsBornShare;
}

// a against b in the steps of `q`; nullopt when the shapes differ or either is not numeric.
// `real`: measure in real units (QuantStep::real_step_at), for a float tensor that is not on the
// grid (the input of a QuantizeLinear measured in its output's steps).
std::optional<StepsOff> steps_off(const QuantStep& q, const Tensor& a, const Tensor& b,
                                  bool real = false);

// The step info of `value` of `graph` between a and b; nullopt when the value is not quantized.
std::optional<StepsOff> quant_steps_off(const Graph& graph, const std::string& value,
                                        const Tensor& a, const Tensor& b);

// Value `v` of run a against run b in steps: in its own steps where it is quantized, else (a float
// value) in the real units of `fallback` when given; nullopt when neither applies or either run did
// not trace it.
Expected<std::optional<StepsOff>> value_steps(const QuantIndex& index, const RepRun& a,
                                              const RepRun& b, const std::string& v,
                                              TensorCache& cache,
                                              const QuantStep* fallback = nullptr);

// The worst (largest steps_max, then steps_share) of the quantized `values` between two runs, and
// which value it is; nullopt when none is quantized.
struct ValuesSteps {
  StepsOff steps;
  std::string value;
  QuantStep quant;
};
Expected<std::optional<ValuesSteps>> values_steps(const QuantIndex& index, const RepRun& a,
                                                  const RepRun& b,
                                                  const std::vector<std::string>& values,
                                                  TensorCache& cache);

// The worst steps over `values` between any two classes of `p` (their first members' runs);
// nullopt when no value is quantized or there is one class.
Expected<std::optional<ValuesSteps>> partition_steps(const CaseData& c, const Partition& p,
                                                     const std::vector<std::string>& values,
                                                     TensorCache& cache);

// Worse of two step counts: larger steps_max, then larger steps_share.
bool worse_steps(const StepsOff& x, const StepsOff& y);

// steps_max rounded to whole steps ("inf" when infinite), for JSON and text.
nlohmann::json steps_json(double steps);
// step, steps_max, steps_share, differing, elements.
nlohmann::json steps_off_json(const StepsOff& s);

}  // namespace ig

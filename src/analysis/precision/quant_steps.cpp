#include "analysis/precision/quant_steps.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <mutex>

#include "model/onnx_model.h"

namespace ig {

namespace {

// Where element i of a tensor of `shape` finds its scale: (i / inner) % count.
struct Grid {
  int64_t inner = 1, count = 1;
  bool per_axis = false;
};

Grid grid_of(const QuantStep& q, const Shape& shape) {
  Grid g;
  if (q.scales.size() <= 1) return g;
  const auto rank = static_cast<int64_t>(shape.size());
  const int64_t axis = q.axis < 0 ? q.axis + rank : q.axis;
  if (axis < 0 || axis >= rank ||
      shape[static_cast<size_t>(axis)] != static_cast<int64_t>(q.scales.size()))
    return g;  // another shape: the smallest scale
  g.per_axis = true;
  g.count = shape[static_cast<size_t>(axis)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) g.inner *= shape[d];
  return g;
}

double smallest(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

double scale_at(const QuantStep& q, const Grid& g, int64_t i) {
  if (!g.per_axis) return smallest(q.scales);
  return q.scales[static_cast<size_t>((i / g.inner) % g.count)];
}

// The values of a constant: an initializer or a Constant node's `value`.
const Tensor* constant_of(const Graph& graph, const std::map<std::string, const Node*>& producers,
                          const std::string& value) {
  if (auto it = graph.initializers.find(value); it != graph.initializers.end()) return &it->second;
  auto p = producers.find(value);
  if (p == producers.end() || p->second->op_type != "Constant") return nullptr;
  const Attribute* a = p->second->attr("value");
  return a && a->kind == Attribute::Kind::kTensor ? &a->t : nullptr;
}

std::vector<double> scales_of(const Tensor* t) {
  std::vector<double> out;
  if (!t || !is_float(t->dtype())) return out;
  for (int64_t i = 0; i < t->numel(); ++i) out.push_back(std::abs(t->as_double(i)));
  // A zero scale makes no grid.
  if (std::find(out.begin(), out.end(), 0.0) != out.end()) out.clear();
  return out;
}

// Ratios within 1e-3 of a whole number of steps are that number.
double snap(double r) {
  const double n = std::round(r);
  return n >= 1 && std::abs(r - n) <= 1e-3 * n ? n : r;
}

// The step of each element: `single`, or per_axis[(i / inner) % count].
struct Steps {
  double single = 1;
  const std::vector<double>* per_axis = nullptr;
  Grid grid;
  double at(int64_t i) const {
    return per_axis ? (*per_axis)[static_cast<size_t>((i / grid.inner) % grid.count)] : single;
  }
};

template <typename A, typename B>
void scan(const StepsOff& init, StepsOff& s, int64_t n, A load_a, B load_b, const Steps& step) {
  s = init;
  for (int64_t i = 0; i < n; ++i) {
    const double x = load_a(i), y = load_b(i);
    if (x == y || (std::isnan(x) && std::isnan(y))) continue;
    ++s.differing;
    double r = std::numeric_limits<double>::infinity();
    if (std::isfinite(x) && std::isfinite(y)) r = snap(std::abs(x - y) / step.at(i));
    s.steps_max = std::max(s.steps_max, r);
    s.stepped += r >= 1;
  }
}

}  // namespace

double QuantStep::step_at(const Shape& shape, int64_t i) const {
  return integer ? 1 : real_step_at(shape, i);
}

double QuantStep::real_step_at(const Shape& shape, int64_t i) const {
  return scale_at(*this, grid_of(*this, shape), i);
}

QuantIndex quant_index(const Graph& graph) {
  std::map<std::string, const Node*> producers;
  for (const auto& n : graph.nodes)
    for (const auto& o : n.outputs) producers[o] = &n;
  QuantIndex index;
  for (const auto& n : graph.nodes) {
    if (!n.domain.empty() && n.domain != "ai.onnx" && n.domain != "com.microsoft") continue;
    if (n.outputs.empty() || n.outputs[0].empty()) continue;
    QuantStep q;
    size_t scale_input = 0;
    if (n.op_type == "DequantizeLinear" || n.op_type == "QuantizeLinear") {
      if (n.attr_int("block_size", 0) > 0) continue;  // blocked scales: no per-element grid here
      scale_input = 1;
      q.integer = n.op_type == "QuantizeLinear";
      q.axis = n.attr_int("axis", 1);
    } else if (n.op_type == "QLinearConv" || n.op_type == "QLinearMatMul") {
      scale_input = 6;  // y_scale
      q.integer = true;
    } else {
      continue;
    }
    if (scale_input < n.inputs.size())
      q.scales = scales_of(constant_of(graph, producers, n.inputs[scale_input]));
    if (!q.integer && q.scales.empty()) continue;  // a computed scale: no known grid
    index[n.outputs[0]] = std::move(q);
  }
  return index;
}

namespace {

std::mutex g_mutex;
std::map<std::string, std::shared_ptr<const QuantIndex>>& indexes() {
  static std::map<std::string, std::shared_ptr<const QuantIndex>> m;
  return m;
}

bool has_quantization(const CaseData& c) {
  for (const auto& n : c.nodes)
    if (n.op_type == "DequantizeLinear" || n.op_type == "QuantizeLinear" ||
        n.op_type.rfind("QLinear", 0) == 0)
      return true;
  return false;
}

}  // namespace

std::shared_ptr<const QuantIndex> quant_index_of(const CaseData& c) {
  std::lock_guard lock(g_mutex);
  auto& known = indexes();
  if (auto it = known.find(c.model); it != known.end()) return it->second;
  auto index = std::make_shared<QuantIndex>();
  std::error_code ec;
  // Loading a model costs its initializers: only models that quantize are worth it.
  if (has_quantization(c) && std::filesystem::is_regular_file(c.model_path, ec))
    if (auto model = load_model(c.model_path); model.ok()) *index = quant_index(model->graph);
  known[c.model] = index;
  return index;
}

void remember_quant_index(const std::string& model_hash, QuantIndex index) {
  std::lock_guard lock(g_mutex);
  indexes()[model_hash] = std::make_shared<const QuantIndex>(std::move(index));
}

std::optional<QuantStep> quant_step_of(const QuantIndex& index, const std::string& value,
                                       DType dtype) {
  if (auto it = index.find(value); it != index.end()) {
    QuantStep q = it->second;
    q.integer = is_integer(dtype);
    if (q.integer || !q.scales.empty()) return q;
  }
  switch (dtype) {
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kInt32: {
      QuantStep q;
      q.integer = true;
      return q;
    }
    default:
      return std::nullopt;
  }
}

std::optional<StepsOff> steps_off(const QuantStep& q, const Tensor& a, const Tensor& b, bool real) {
  if (a.shape() != b.shape()) return std::nullopt;
  for (const Tensor* t : {&a, &b})
    if (!is_float(t->dtype()) && !is_integer(t->dtype())) return std::nullopt;
  const bool in_units = q.integer && !real;
  if (!in_units && q.scales.empty()) return std::nullopt;
  StepsOff init;
  init.elements = a.numel();
  init.step = in_units ? 1 : smallest(q.scales);
  Steps step;
  step.single = init.step;
  step.grid = grid_of(q, a.shape());
  if (!in_units && step.grid.per_axis) step.per_axis = &q.scales;
  StepsOff s;
  // Typed loops for the pairs studies have (fp32 and fp64 floats, 8-bit integers).
  const auto dta = a.dtype(), dtb = b.dtype();
  if (dta == DType::kFloat32 && dtb == DType::kFloat64) {
    const float* pa = a.data<float>();
    const double* pb = b.data<double>();
    scan(
        init, s, a.numel(), [pa](int64_t i) { return double(pa[i]); },
        [pb](int64_t i) { return pb[i]; }, step);
  } else if (dta == DType::kFloat32 && dtb == DType::kFloat32) {
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    scan(
        init, s, a.numel(), [pa](int64_t i) { return double(pa[i]); },
        [pb](int64_t i) { return double(pb[i]); }, step);
  } else if (dta == DType::kUInt8 && dtb == DType::kUInt8) {
    const uint8_t* pa = a.data<uint8_t>();
    const uint8_t* pb = b.data<uint8_t>();
    scan(
        init, s, a.numel(), [pa](int64_t i) { return double(pa[i]); },
        [pb](int64_t i) { return double(pb[i]); }, step);
  } else {
    scan(
        init, s, a.numel(), [&a](int64_t i) { return a.as_double(i); },
        [&b](int64_t i) { return b.as_double(i); }, step);
  }
  s.steps_share = s.elements ? static_cast<double>(s.stepped) / static_cast<double>(s.elements) : 0;
  return s;
}

std::optional<StepsOff> quant_steps_off(const Graph& graph, const std::string& value,
                                        const Tensor& a, const Tensor& b) {
  auto q = quant_step_of(quant_index(graph), value, a.dtype());
  if (!q) return std::nullopt;
  return steps_off(*q, a, b);
}

Expected<std::optional<StepsOff>> value_steps(const QuantIndex& index, const RepRun& a,
                                              const RepRun& b, const std::string& v,
                                              TensorCache& cache, const QuantStep* fallback) {
  auto ia = a.values.find(v);
  auto ib = b.values.find(v);
  if (ia == a.values.end() || ib == b.values.end()) return std::optional<StepsOff>();
  auto q = quant_step_of(index, v, ia->second.dtype);
  if (!q && !fallback) return std::optional<StepsOff>();
  IG_ASSIGN_OR_RETURN(Tensor ta, cache.get(ia->second));
  IG_ASSIGN_OR_RETURN(Tensor tb, cache.get(ib->second));
  if (q) return steps_off(*q, ta, tb);
  return steps_off(*fallback, ta, tb, /*real=*/true);
}

bool worse_steps(const StepsOff& x, const StepsOff& y) {
  return x.steps_max != y.steps_max ? x.steps_max > y.steps_max : x.steps_share > y.steps_share;
}

Expected<std::optional<ValuesSteps>> values_steps(const QuantIndex& index, const RepRun& a,
                                                  const RepRun& b,
                                                  const std::vector<std::string>& values,
                                                  TensorCache& cache) {
  std::optional<ValuesSteps> worst;
  for (const auto& v : values) {
    IG_ASSIGN_OR_RETURN(auto s, value_steps(index, a, b, v, cache));
    if (!s || (worst && !worse_steps(*s, worst->steps))) continue;
    worst = ValuesSteps{*s, v, *quant_step_of(index, v, a.values.at(v).dtype)};
  }
  return worst;
}

Expected<std::optional<ValuesSteps>> partition_steps(const CaseData& c, const Partition& p,
                                                     const std::vector<std::string>& values,
                                                     TensorCache& cache) {
  std::optional<ValuesSteps> worst;
  if (p.classes.size() < 2) return worst;
  const auto quant = quant_index_of(c);
  std::vector<const RepRun*> reps;
  for (const auto& cls : p.classes) {
    auto it = c.runs.find(cls.front());
    if (it != c.runs.end() && it->second.run()) reps.push_back(it->second.run());
  }
  for (size_t i = 0; i < reps.size(); ++i)
    for (size_t j = i + 1; j < reps.size(); ++j) {
      IG_ASSIGN_OR_RETURN(auto s, values_steps(*quant, *reps[i], *reps[j], values, cache));
      if (s && (!worst || worse_steps(s->steps, worst->steps))) worst = std::move(s);
    }
  return worst;
}

nlohmann::json steps_json(double steps) {
  if (std::isinf(steps)) return "inf";
  return steps;
}

nlohmann::json steps_off_json(const StepsOff& s) {
  return {{"step", s.step},
          {"steps_max", steps_json(s.steps_max)},
          {"steps_share", s.steps_share},
          {"differing", s.differing},
          {"elements", s.elements}};
}

}  // namespace ig

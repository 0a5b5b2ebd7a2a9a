// random:uniform / random:normal / random:model inputs.
#include <cmath>

#include "inputs/inputs.h"
#include "inputs/random_input.h"

namespace ig {

namespace {

Expected<double> number_option(const InputSource& src, const char* key, double fallback) {
  auto it = src.options.find(key);
  if (it == src.options.end()) return fallback;
  try {
    size_t used = 0;
    const double v = std::stod(it->second, &used);
    if (used == it->second.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return invalid_argument("{}='{}' is not a finite number", key, it->second);
}

// Range the model declares for an input: metadata "infergap.input.NAME.range" = "LO,HI".
Expected<std::pair<double, double>> model_range(const InputTarget& t) {
  const std::string key = "infergap.input." + t.name + ".range";
  auto it = t.metadata.find(key);
  if (it == t.metadata.end())
    return invalid_argument(
        "random:model needs the model to declare a range (metadata '{}'); use "
        "random:uniform,lo=,hi=",
        key);
  const auto comma = it->second.find(',');
  try {
    if (comma == std::string::npos) throw std::invalid_argument("no comma");
    const double lo = std::stod(it->second.substr(0, comma));
    const double hi = std::stod(it->second.substr(comma + 1));
    if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi))
      throw std::invalid_argument("range");
    return std::pair{lo, hi};
  } catch (const std::exception&) {
    return invalid_argument("metadata '{}' = '{}' is not LO,HI with LO < HI", key, it->second);
  }
}

}  // namespace

Expected<Tensor> random_input(const InputSource& src, const InputTarget& t, const Shape& shape,
                              uint64_t seed, std::string& recipe) {
  const std::string& dist = src.head;
  const uint64_t item_seed = derive_seed(seed, t.name);
  Rng rng(item_seed);
  // Impossible sizes become a Status here rather than bad_alloc below.
  IG_RETURN_IF_ERROR(Tensor::create(t.dtype, shape).status());
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> values;
  std::string params;
  if (dist == "uniform" || dist == "model") {
    IG_RETURN_IF_ERROR(check_source_options(
        src,
        dist == "uniform" ? std::set<std::string>{"seed", "shape", "dtype", "lo", "hi"}
                          : std::set<std::string>{"seed", "shape", "dtype"},
        "random:" + dist));
    double lo = 0, hi = 1;
    if (dist == "model") {
      IG_ASSIGN_OR_RETURN(auto range, model_range(t));
      std::tie(lo, hi) = range;
    } else {
      IG_ASSIGN_OR_RETURN(lo, number_option(src, "lo", 0));
      IG_ASSIGN_OR_RETURN(hi, number_option(src, "hi", 1));
      if (!(lo < hi)) return invalid_argument("random:uniform needs lo < hi (got {}, {})", lo, hi);
    }
    params = fmt::format("lo={},hi={}", lo, hi);
    // [0, 1) is the generator the paper used (and `run` always had): keep its exact values.
    if (lo == 0 && hi == 1) {
      recipe = fmt::format("random:uniform,{},seed={},shape={},dtype={}", params, seed,
                           shape_string(shape), dtype_name(t.dtype));
      return random_uniform_tensor(t.dtype, shape, item_seed);
    }
    values.resize(static_cast<size_t>(n));
    for (auto& v : values) v = rng.uniform(lo, hi);
    if (is_integer(t.dtype))
      for (auto& v : values) v = std::floor(v);
  } else if (dist == "normal") {
    IG_RETURN_IF_ERROR(
        check_source_options(src, {"seed", "shape", "dtype", "mean", "std"}, "random:normal"));
    IG_ASSIGN_OR_RETURN(const double mean, number_option(src, "mean", 0));
    IG_ASSIGN_OR_RETURN(const double sd, number_option(src, "std", 1));
    if (!(sd > 0)) return invalid_argument("random:normal needs std > 0 (got {})", sd);
    params = fmt::format("mean={},std={}", mean, sd);
    values.resize(static_cast<size_t>(n));
    for (auto& v : values) v = rng.normal(mean, sd);
    if (is_integer(t.dtype))
      for (auto& v : values) v = std::round(v);
  } else {
    return invalid_argument("unknown distribution 'random:{}' (use uniform, normal or model)",
                            dist);
  }
  recipe = fmt::format("random:{},{},seed={},shape={},dtype={}", dist == "model" ? "uniform" : dist,
                       params, seed, shape_string(shape), dtype_name(t.dtype));
  return tensor_from_doubles(t.dtype, shape, values);
}

}  // namespace ig

#include "platform/bindings/cuda_options.h"

#include <algorithm>

#include "platform/options.h"

namespace ig::cuda {

namespace {

Expected<std::vector<Algo>> parse_algos(const PlatformSpec& spec, const std::string& text) {
  std::vector<Algo> out;
  size_t pos = 0;
  for (;;) {
    const size_t slash = text.find('/', pos);
    const std::string item = text.substr(pos, slash == std::string::npos ? slash : slash - pos);
    auto it = std::find(kAlgoNames.begin(), kAlgoNames.end(), item);
    if (it == kAlgoNames.end()) {
      return invalid_argument(
          "platform '{}': algo={}: '{}' is not an algorithm (valid: {}; a per-layer list "
          "separates one per convolution with '/', e.g. algo=gemm/fft/winograd)",
          spec.to_string(), text, item, join_names(algo_names()));
    }
    out.push_back(static_cast<Algo>(it - kAlgoNames.begin()));
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return out;
}

// on|off, off when absent.
Expected<bool> on_off(const PlatformSpec& spec, const std::string& key) {
  auto v = choice_option(spec, key, "off", {"on", "off"});
  if (!v.ok()) return v.status();
  return *v == "on";
}

}  // namespace

Expected<Options> parse_options(const PlatformSpec& spec) {
  IG_RETURN_IF_ERROR(check_option_keys(
      spec, {"algo", "tf32", "deterministic", "device", "tune-runs", "fallback"}));
  Options o;
  if (auto it = spec.options.find("algo"); it != spec.options.end()) {
    IG_ASSIGN_OR_RETURN(o.algos, parse_algos(spec, it->second));
  }
  IG_ASSIGN_OR_RETURN(o.tf32, on_off(spec, "tf32"));
  IG_ASSIGN_OR_RETURN(o.deterministic, on_off(spec, "deterministic"));
  IG_ASSIGN_OR_RETURN(o.device, int_option(spec, "device", 0, 0, 63));
  IG_ASSIGN_OR_RETURN(o.tune_runs, int_option(spec, "tune-runs", 5, 1, 101));
  auto fallback = choice_option(spec, "fallback", "none", {"none", "ref"});
  if (!fallback.ok()) return fallback.status();
  o.fallback_ref = *fallback == "ref";
  return o;
}

}  // namespace ig::cuda

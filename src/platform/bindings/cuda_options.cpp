#include "platform/bindings/cuda_options.h"

#include <algorithm>

#include "platform/knobs.h"
#include "platform/options.h"

namespace ig::cuda {

namespace {

// The paper's GPU causes: the forward algorithm cuDNN runs (fixed, heuristic or timed), TF32
// tensor cores, and deterministic mode.
const KnobTable kKnobs = {
    {.key = "algo",
     .default_value = "",
     .values = algo_names(),
     .help = "cuDNN's forward algorithm (none: its heuristic)",
     .cause = "conv-algorithm",
     .values_form = "an algorithm per convolution, joined with '/', e.g. gemm/fft/winograd"},
    {.key = "tf32",
     .default_value = "off",
     .values = {"on", "off"},
     .help = "TF32 tensor cores",
     .cause = "precision"},
    {.key = "deterministic",
     .default_value = "off",
     .values = {"on", "off"},
     .help = "only deterministic algorithms",
     .cause = "accumulation-order"},
    {.key = "device",
     .default_value = "0",
     .values = {"0"},
     .help = "GPU index",
     .cause = "device",
     .min = 0,
     .max = 63},
    {.key = "tune-runs",
     .default_value = "5",
     .values = {"5"},
     .help = "timings per algorithm when autotuning",
     .cause = "conv-algorithm",
     .min = 1,
     .max = 101},
    fallback_knob("cuDNN"),
};
const KnobRegistrar kRegisteredKnobs("cuda", kKnobs);

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

// on|off, as the table says when absent.
Expected<bool> on_off(const PlatformSpec& spec, const std::string& key) {
  auto v = choice_option(spec, kKnobs, key);
  if (!v.ok()) return v.status();
  return *v == "on";
}

}  // namespace

Expected<Options> parse_options(const PlatformSpec& spec) {
  IG_RETURN_IF_ERROR(check_option_keys(spec, kKnobs));
  Options o;
  if (auto it = spec.options.find("algo"); it != spec.options.end()) {
    IG_ASSIGN_OR_RETURN(o.algos, parse_algos(spec, it->second));
  }
  IG_ASSIGN_OR_RETURN(o.tf32, on_off(spec, "tf32"));
  IG_ASSIGN_OR_RETURN(o.deterministic, on_off(spec, "deterministic"));
  IG_ASSIGN_OR_RETURN(o.device, int_option(spec, kKnobs, "device"));
  IG_ASSIGN_OR_RETURN(o.tune_runs, int_option(spec, kKnobs, "tune-runs"));
  auto fallback = choice_option(spec, kKnobs, "fallback");
  if (!fallback.ok()) return fallback.status();
  o.fallback_ref = *fallback == "ref";
  return o;
}

}  // namespace ig::cuda

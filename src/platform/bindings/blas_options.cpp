#include "platform/bindings/blas_options.h"

#include <algorithm>

#include "platform/knobs.h"
#include "platform/options.h"

namespace ig {

namespace {
// Which library and which of its kernels (core/arch: the SIMD width) do the GEMMs.
const KnobTable kKnobs = {
    {.key = "lib",
     .default_value = "openblas",
     .values = {"openblas", "blis"},
     .help = "the BLAS library",
     .cause = "library"},
    {.key = "core",
     .default_value = "",
     .values = openblas_core_names(),
     .help = "OpenBLAS core type (OPENBLAS_CORETYPE)",
     .cause = "simd-width",
     .needs = {{"lib", "openblas"}}},
    {.key = "arch",
     .default_value = "",
     .values = blis_arch_names(),
     .help = "BLIS architecture (BLIS_ARCH_TYPE)",
     .cause = "simd-width",
     .needs = {{"lib", "blis"}}},
    threads_knob("BLAS threads"),
    {.key = "dtype",
     .default_value = "fp32",
     .values = {"fp32", "fp64"},
     .help = "sgemm or dgemm",
     .cause = "precision"},
};
const KnobRegistrar kRegisteredKnobs("blas", kKnobs);
}  // namespace

Expected<BlasChoice> parse_blas_spec(const PlatformSpec& spec) {
  IG_RETURN_IF_ERROR(check_option_keys(spec, kKnobs));
  BlasChoice c;
  auto lib = choice_option(spec, kKnobs, "lib");
  if (!lib.ok()) return lib.status();
  c.lib = *lib;
  if (c.lib == "openblas" && spec.options.count("arch")) {
    return invalid_argument("platform '{}': arch= is a BLIS knob; OpenBLAS takes core= ({})",
                            spec.to_string(), join_names(openblas_core_names()));
  }
  if (c.lib == "blis" && spec.options.count("core")) {
    return invalid_argument("platform '{}': core= is an OpenBLAS knob; BLIS takes arch= ({})",
                            spec.to_string(), join_names(blis_arch_names()));
  }
  auto core = choice_option(spec, kKnobs, "core");
  if (!core.ok()) return core.status();
  c.core = *core;
  auto arch = choice_option(spec, kKnobs, "arch");
  if (!arch.ok()) return arch.status();
  c.arch = *arch;
  auto threads = int_option(spec, kKnobs, "threads");
  if (!threads.ok()) return threads.status();
  c.threads = *threads;
  auto dtype = choice_option(spec, kKnobs, "dtype");
  if (!dtype.ok()) return dtype.status();
  c.fp64 = *dtype == "fp64";
  return c;
}

std::map<std::string, std::string> blas_environment(const BlasChoice& c) {
  std::map<std::string, std::string> env;
  const std::string threads = std::to_string(c.threads);
  if (c.lib == "openblas") {
    if (!c.core.empty()) env["OPENBLAS_CORETYPE"] = c.core;
    env["OPENBLAS_NUM_THREADS"] = threads;
  } else {
    const auto& names = blis_arch_names();
    if (!c.arch.empty()) {
      const auto at = std::find(names.begin(), names.end(), c.arch) - names.begin();
      env["BLIS_ARCH_TYPE"] = std::to_string(at);
    }
    env["BLIS_NUM_THREADS"] = threads;
  }
  return env;
}

}  // namespace ig

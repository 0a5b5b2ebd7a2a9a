// The deep-learning compilers' factories, knobs and candidate platforms: openvino, iree and torch2,
// each a CompilerBackend whose runner is src/backends/pyrunner/compiler_runner.py in the venv's
// python (the packages come with scripts/setup --tests).
//
// PyTorch 2 is a backend of its own, `torch2`, not a knob of `torch`: `torch` is libtorch 1.13 run
// node by node from C++, and a compile knob there would pair a compiled run with an eager one of
// another release, calling a version change "fusion".
#include <unistd.h>

#include "backends/compilers/compiler_backend.h"
#include "core/cache_dir.h"
#include "core/venv.h"
#include "platform/catalog.h"
#include "platform/knobs.h"
#include "platform/options.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {

namespace {

const KnobTable kOpenvinoKnobs = {
    {.key = "precision",
     .default_value = "auto",
     .values = {"auto", "f32", "bf16", "f16"},
     .help = "inference precision hint; auto is the plugin's own choice: bf16 on a CPU with "
             "AVX512-BF16 or AMX (the platform's notes name what ran)",
     .cause = "precision"},
    {.key = "mode",
     .default_value = "performance",
     .values = {"performance", "accuracy"},
     .help = "execution mode hint: accuracy keeps f32 where performance may lower it",
     .cause = "precision"},
    threads_knob("inference threads"),
};
const KnobRegistrar kOpenvinoRegistered("openvino", kOpenvinoKnobs);

const KnobTable kIreeKnobs = {
    {.key = "opt",
     .default_value = "O2",
     .values = {"O0", "O1", "O2", "O3"},
     .help = "iree-compile's optimization level (--iree-opt-level)",
     .cause = "fusion",
     .eager_value = "O0"},
    {.key = "cpu",
     .default_value = "host",
     .values = {"host", "generic"},
     .help = "llvm-cpu target: this CPU's vector extensions, or the x86-64 baseline",
     .cause = "simd-width"},
    threads_knob("runtime workers (1: the local-sync driver)"),
};
const KnobRegistrar kIreeRegistered("iree", kIreeKnobs);

const KnobTable kTorch2Knobs = {
    {.key = "compile",
     .default_value = "inductor",
     .values = {"off", "inductor", "max-autotune", "freezing"},
     .help = "torch.compile mode over the whole module: off runs it eagerly, max-autotune picks "
             "autotuned GEMM/convolution templates, freezing folds and prepacks the weights",
     .cause = "fusion",
     .value_causes = {{"max-autotune", "conv-algorithm"}, {"freezing", "conv-algorithm"}},
     .eager_value = "off"},
    threads_knob("intra-op threads (Inductor's OpenMP kernels too)"),
};
const KnobRegistrar kTorch2Registered("torch2", kTorch2Knobs);

// Every knob's value, defaults included: the adapter reads them all.
Expected<std::map<std::string, std::string>> knob_values(const PlatformSpec& spec,
                                                         const KnobTable& table) {
  IG_RETURN_IF_ERROR(check_option_keys(spec, table));
  std::map<std::string, std::string> out;
  for (const auto& k : table) {
    if (k.min < k.max) {
      IG_ASSIGN_OR_RETURN(int v, int_option(spec, table, k.key));
      out[k.key] = std::to_string(v);
    } else {
      IG_ASSIGN_OR_RETURN(out[k.key], choice_option(spec, table, k.key));
    }
  }
  return out;
}

Expected<std::unique_ptr<Backend>> make_compiler(const PlatformSpec& spec, const KnobTable& table,
                                                 const std::string& package) {
  IG_ASSIGN_OR_RETURN(auto knobs, knob_values(spec, table));
  const std::string python = venv_python();
  if (::access(python.c_str(), X_OK) != 0)
    return unsupported(
        "{}: no python at {}; {} goes into .venv with scripts/setup --tests (or "
        "set INFERGAP_PYTHON)",
        spec.backend, python, package);
  IG_ASSIGN_OR_RETURN(
      auto runner,
      RunnerProcess::start(
          {python, source_file("src/backends/pyrunner/compiler_runner.py"), spec.backend},
          spec.backend + " runner"));
  return std::unique_ptr<Backend>(std::make_unique<CompilerBackend>(
      spec.backend, std::move(knobs), default_cache_dir() + "/compiled", std::move(runner)));
}

const BackendRegistrar kOpenvinoRegistrar(BackendFactory{
    "openvino", "OpenVINO's CPU plugin (PyPI openvino, python runner): precision, mode, threads",
    [](const PlatformSpec& s) { return make_compiler(s, kOpenvinoKnobs, "PyPI's openvino"); },
    nullptr});
const BackendRegistrar kIreeRegistrar(BackendFactory{
    "iree",
    "IREE: iree-import-onnx, iree-compile for llvm-cpu, its runtime (PyPI, python runner): opt, "
    "cpu, threads",
    [](const PlatformSpec& s) { return make_compiler(s, kIreeKnobs, "PyPI's iree-base-*"); },
    nullptr});
const BackendRegistrar kTorch2Registrar(BackendFactory{
    "torch2",
    "PyTorch 2 eager or torch.compile (Inductor) on the model converted by onnx2torch (PyPI, "
    "python runner): compile, threads",
    [](const PlatformSpec& s) { return make_compiler(s, kTorch2Knobs, "PyPI's torch"); }, nullptr});

// Each backend's candidates, all of them in preset `compilers` (ranked in this order).
std::vector<PlatformCandidate> with_preset(std::vector<PlatformCandidate> list, int first_rank) {
  std::vector<std::pair<std::string, int>> members;
  for (const auto& c : list) members.push_back({c.spec, first_rank++});
  join_preset(list, "compilers", members);
  return list;
}

const CandidateRegistrar kOpenvinoCandidates("openvino", [] {
  return with_preset(
      {{"openvino:precision=auto,threads=1", {}, "OpenVINO at the plugin's own precision"},
       {"openvino:mode=accuracy,precision=f32,threads=1", {}, "OpenVINO held to f32"}},
      10);
});
const CandidateRegistrar kIreeCandidates("iree", [] {
  return with_preset(
      {{"iree:opt=O0,threads=1", {}, "IREE at its lowest optimization level (eager partner)"},
       {"iree:opt=O2,threads=1", {}, "IREE at its default optimization level"}},
      20);
});
const CandidateRegistrar kTorch2Candidates("torch2", [] {
  return with_preset(
      {{"torch2:compile=off,threads=1", {}, "PyTorch 2 eager (torch.compile's partner)"},
       {"torch2:compile=inductor,threads=1", {}, "torch.compile with Inductor"}},
      30);
});

}  // namespace

}  // namespace ig

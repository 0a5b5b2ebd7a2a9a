// The `torch` platform factory: `torch:mkldnn=off,threads=2,deterministic=on,fallback=ref,
// qengine=qnnpack`. The backend lives in libinfergap_torch.so, dlopen'ed on first use, so that
// a worker for any other platform neither loads libtorch nor pays its start-up (about 0.7 s and
// 100 MB here).
#include <dlfcn.h>
#include <unistd.h>

#include "backends/torch/torch_options.h"
#include "core/module_file.h"
#include "platform/catalog.h"
#include "platform/knobs.h"
#include "platform/options.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {
namespace {

const KnobTable kKnobs = {
    {.key = "mkldnn",
     .default_value = "on",
     .values = {"on", "off"},
     .help = "oneDNN (mkldnn) convolutions or ATen's own",
     .cause = "conv-algorithm"},
    threads_knob("intra-op threads"),
    {.key = "deterministic",
     .default_value = "off",
     .values = {"on", "off"},
     .help = "torch.use_deterministic_algorithms",
     .cause = "accumulation-order"},
    fallback_knob("torch"),
    {.key = "qengine",
     .default_value = "none",
     .values = {"none", "qnnpack", "fbgemm", "onednn"},
     .help = "int8 QDQ conv/linear groups as PyTorch's quantized operators on this engine (those "
             "this libtorch has)",
     .cause = "integer-kernel"},
    // Two releases side by side, each a module of its own (never two in one process).
    {.key = "version",
     .default_value = "1.13",
     .values = {"1.13", "2.15"},
     .help = "libtorch release: 1.13 is Debian's libtorch-dev, 2.15 PyPI's PyTorch wheel in .venv "
             "(scripts/setup --tests)",
     .cause = "library-version"},
};
const KnobRegistrar kRegisteredKnobs("torch", kKnobs);

Expected<TorchOptions> parse(const PlatformSpec& spec) {
  IG_RETURN_IF_ERROR(check_option_keys(spec, kKnobs));
  TorchOptions o;
  auto mkldnn = choice_option(spec, kKnobs, "mkldnn");
  if (!mkldnn.ok()) return mkldnn.status();
  o.mkldnn = *mkldnn == "on";
  auto threads = int_option(spec, kKnobs, "threads");
  if (!threads.ok()) return threads.status();
  o.threads = *threads;
  auto det = choice_option(spec, kKnobs, "deterministic");
  if (!det.ok()) return det.status();
  o.deterministic = *det == "on";
  auto fallback = choice_option(spec, kKnobs, "fallback");
  if (!fallback.ok()) return fallback.status();
  o.fallback_ref = *fallback == "ref";
  auto qengine = choice_option(spec, kKnobs, "qengine");
  if (!qengine.ok()) return qengine.status();
  if (*qengine != "none") o.qengine = *qengine;
  return o;
}

#ifndef INFERGAP_TORCH_WHEEL_MODULE
#define INFERGAP_TORCH_WHEEL_MODULE ""
#endif

// The module of a release: beside the executable (an installed tree), else where the build put it.
Expected<std::string> module_path(const std::string& version) {
  const bool wheel = version == "2.15";
  const std::string built = wheel ? INFERGAP_TORCH_WHEEL_MODULE : INFERGAP_TORCH_MODULE;
  if (built.empty()) {
    return unsupported(
        "torch:version={}: this infergap was built without PyPI's PyTorch (scripts/setup "
        "--tests puts it in .venv; then scripts/build)",
        version);
  }
  return module_file(built);
}

Expected<MakeTorchBackendFn> load_module(const PlatformSpec& spec, const std::string& version) {
  // One libtorch per process: a second release's symbols would meet the first's.
  static std::string loaded_path;
  static MakeTorchBackendFn make_fn = nullptr;
  static std::string load_error;
  IG_ASSIGN_OR_RETURN(const std::string path, module_path(version));
  if (!loaded_path.empty() && loaded_path != path) {
    return unsupported("platform '{}': this process loaded {} already; one libtorch per process",
                       spec.to_string(), loaded_path);
  }
  if (loaded_path.empty()) {
    loaded_path = path;
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      load_error = ::dlerror();
    } else {
      make_fn = reinterpret_cast<MakeTorchBackendFn>(::dlsym(handle, kMakeTorchBackendSymbol));
      if (!make_fn) load_error = path + " has no " + kMakeTorchBackendSymbol;
    }
  }
  if (!make_fn) {
    return unsupported("platform '{}': cannot load the ATen module: {}", spec.to_string(),
                       load_error);
  }
  return make_fn;
}

Expected<std::map<std::string, std::string>> environment(const PlatformSpec& spec) {
  auto o = parse(spec);
  if (!o.ok()) return o.status();
  return std::map<std::string, std::string>{{"OMP_NUM_THREADS", std::to_string(o->threads)}};
}

Expected<std::unique_ptr<Backend>> make(const PlatformSpec& spec) {
  auto o = parse(spec);
  if (!o.ok()) return o.status();
  IG_ASSIGN_OR_RETURN(const std::string version, choice_option(spec, kKnobs, "version"));
  IG_ASSIGN_OR_RETURN(MakeTorchBackendFn make_fn, load_module(spec, version));
  std::string error;
  std::unique_ptr<Backend> backend(make_fn(&*o, &error));
  if (!backend) {
    return internal_error("platform '{}': the ATen module failed: {}", spec.to_string(), error);
  }
  // The knob names a release; the module says which libtorch it loaded.
  if (backend->library().version.rfind(version + ".", 0) != 0) {
    return unsupported("torch:version={} asked for, and the module loaded libtorch {}", version,
                       backend->library().version);
  }
  return backend;
}

const BackendRegistrar kTorchRegistrar(BackendFactory{
    "torch",
    "PyTorch's ATen kernels per ONNX node, as eager mode calls them (knobs: mkldnn, threads, "
    "deterministic, fallback, qengine)",
    make, environment});

// mkldnn on/off is PyTorch's own oneDNN-backed conv/linear vs its native kernels; threads split
// the reductions.
const CandidateRegistrar kTorchCandidates("torch", [] {
  std::vector<PlatformCandidate> out = {
      {"torch:mkldnn=on,threads=1",
       {"cpu-sweep", "frameworks"},
       "PyTorch eager, oneDNN kernels",
       false},
      {"torch:mkldnn=off,threads=1",
       {"cpu-sweep", "frameworks"},
       "PyTorch eager, native kernels",
       false},
      {"torch:mkldnn=on,threads=2", {"cpu-sweep"}, "thread split", false},
      // int8: PyTorch's quantized conv/linear on its two engines in Debian's 1.13.
      {"torch:fallback=ref,qengine=qnnpack",
       {"int8"},
       "int8 QDQ groups as quantized::conv2d/linear, QNNPACK",
       false,
       {{"int8", 40}}},
      {"torch:fallback=ref,qengine=onednn",
       {"int8"},
       "int8 QDQ groups as quantized::conv2d/linear, oneDNN",
       false,
       {{"int8", 41}}},
  };
  join_preset(out, "host", {{"torch:mkldnn=on,threads=1", 70}});  // the host study
  // Today's PyTorch beside Debian's, at the same settings (preset `versions`).
  for (const char* mkldnn : {"on", "off"}) {
    out.push_back({std::string("torch:mkldnn=") + mkldnn + ",threads=1,version=2.15",
                   {"versions"},
                   std::string("PyTorch 2.15 (PyPI) eager, ") +
                       (std::string(mkldnn) == "on" ? "oneDNN" : "native") + " kernels",
                   false});
  }
  join_preset(out, "versions",
              {{"torch:mkldnn=on,threads=1", 60}, {"torch:mkldnn=off,threads=1", 61}});
  return out;
});

}  // namespace
}  // namespace ig

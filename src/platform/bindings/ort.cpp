// The ort backend's factory and candidate platforms.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "backends/ort/ort_backend.h"
#include "core/spawn.h"
#include "core/venv.h"
#include "platform/catalog.h"
#include "platform/knobs.h"
#include "platform/options.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {

namespace {

const std::vector<std::string> kLevels = {"disabled", "basic", "extended", "all"};

// opt is ORT's graph optimization level: above disabled it fuses nodes (the compiled mode).
const KnobTable kKnobs = {
    {.key = "opt",
     .default_value = "all",
     .values = kLevels,
     .help = "graph optimization level",
     .cause = "fusion",
     .eager_value = "disabled"},
    threads_knob("intra-op threads"),
    // Two releases side by side: an upgrade that changes the bits is seen as such.
    {.key = "version",
     .default_value = "1.30",
     .values = {"1.30", "1.31"},
     .help = "ONNX Runtime release: 1.30 is npm's onnxruntime-node run by node.js, 1.31 PyPI's "
             "onnxruntime in .venv run by python (scripts/setup --tests)",
     .cause = "library-version"},
};
const KnobRegistrar kRegisteredKnobs("ort", kKnobs);

Expected<OrtOptions> parse_options(const PlatformSpec& spec) {
  IG_RETURN_IF_ERROR(check_option_keys(spec, kKnobs));
  OrtOptions o;
  IG_ASSIGN_OR_RETURN(o.opt, choice_option(spec, kKnobs, "opt"));
  IG_ASSIGN_OR_RETURN(o.threads, int_option(spec, kKnobs, "threads"));
  IG_ASSIGN_OR_RETURN(o.version, choice_option(spec, kKnobs, "version"));
  return o;
}

// $INFERGAP_NODE_MODULES, else the node_modules folder scripts/setup fills in the source tree.
std::string modules_dir() {
  if (const char* d = std::getenv("INFERGAP_NODE_MODULES"); d && *d) return d;
  return INFERGAP_NODE_MODULES;
}

// ORT 1.31 from PyPI: runner.py in the venv's python.
Expected<std::vector<std::string>> python_runner() {
  const std::string python = venv_python();
  if (::access(python.c_str(), X_OK) != 0) {
    return unsupported(
        "ort:version=1.31: no python at {}; PyPI's onnxruntime goes into .venv with "
        "scripts/setup --tests (or set INFERGAP_PYTHON)",
        python);
  }
  return std::vector<std::string>{python, source_file("src/backends/ort/runner.py")};
}

// ORT 1.30 from npm: runner.js in node.js.
Expected<std::vector<std::string>> node_runner() {
  const char* env_node = std::getenv("INFERGAP_NODE");
  const std::string node = env_node && *env_node ? env_node : find_on_path("node");
  if (node.empty()) return unsupported("ort: node.js not found on PATH (run scripts/setup)");
  const std::string modules = modules_dir();
  if (!std::filesystem::exists(std::filesystem::path(modules) / "onnxruntime-node/package.json"))
    return unsupported("ort: onnxruntime-node is not installed in {} (run scripts/setup)", modules);
  return std::vector<std::string>{node, INFERGAP_ORT_RUNNER, modules};
}

Expected<std::unique_ptr<Backend>> make_ort_backend(const PlatformSpec& spec) {
  IG_ASSIGN_OR_RETURN(OrtOptions options, parse_options(spec));
  IG_ASSIGN_OR_RETURN(std::vector<std::string> argv,
                      options.version == "1.31" ? python_runner() : node_runner());
  IG_ASSIGN_OR_RETURN(auto runner, RunnerProcess::start(std::move(argv), "ort runner"));
  // The knob names a release; the runner says which one it loaded.
  if (runner->version().rfind(options.version + ".", 0) != 0) {
    return unsupported("ort:version={} asked for, and the runner loaded ONNX Runtime {}",
                       options.version, runner->version());
  }
  return std::unique_ptr<Backend>(std::make_unique<OrtBackend>(options, std::move(runner)));
}

const BackendRegistrar kOrtRegistrar(BackendFactory{
    "ort",
    "ONNX Runtime through a runner process: 1.30 (npm, node.js) or 1.31 (PyPI, python); opt, "
    "threads, version",
    make_ort_backend, nullptr});

const CandidateRegistrar kOrtCandidates("ort", [] {
  std::vector<PlatformCandidate> out;
  for (const auto& l : kLevels) {
    const bool sweep = l == "disabled" || l == "all";
    out.push_back({"ort:opt=" + l + ",threads=1",
                   sweep ? std::vector<std::string>{"cpu-sweep"} : std::vector<std::string>{},
                   "graph optimization " + l, false});
  }
  out.push_back({"ort:opt=all,threads=2", {}, "graph optimization all, 2 intra-op threads", false});
  for (const auto& l : {"disabled", "all"}) {
    out.push_back({std::string("ort:opt=") + l + ",threads=1,version=1.31",
                   {"versions"},
                   std::string("ONNX Runtime 1.31 (PyPI), graph optimization ") + l,
                   false});
  }
  // Its share of the default study (preset demo, platform/catalog.h).
  join_preset(out, "demo", {{"ort:opt=disabled,threads=1", 50}, {"ort:opt=all,threads=1", 51}});
  // int8: QDQ as written (float kernels) and fused into ORT's integer kernels.
  join_preset(out, "int8", {{"ort:opt=disabled,threads=1", 50}, {"ort:opt=all,threads=1", 51}});
  join_preset(out, "host", {{"ort:opt=all,threads=1", 50}});
  // One library in two releases: preset `versions` holds both at the same settings.
  join_preset(out, "versions", {{"ort:opt=disabled,threads=1", 50}, {"ort:opt=all,threads=1", 51}});
  return out;
});

}  // namespace

}  // namespace ig

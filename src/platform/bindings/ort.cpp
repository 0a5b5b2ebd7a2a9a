// The ort backend's factory and candidate platforms.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "backends/ort/ort_backend.h"
#include "core/spawn.h"
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
};
const KnobRegistrar kRegisteredKnobs("ort", kKnobs);

Expected<OrtOptions> parse_options(const PlatformSpec& spec) {
  IG_RETURN_IF_ERROR(check_option_keys(spec, kKnobs));
  OrtOptions o;
  IG_ASSIGN_OR_RETURN(o.opt, choice_option(spec, kKnobs, "opt"));
  IG_ASSIGN_OR_RETURN(o.threads, int_option(spec, kKnobs, "threads"));
  return o;
}

// $INFERGAP_NODE_MODULES, else the node_modules folder scripts/setup fills in the source tree.
std::string modules_dir() {
  if (const char* d = std::getenv("INFERGAP_NODE_MODULES"); d && *d) return d;
  return INFERGAP_NODE_MODULES;
}

Expected<std::unique_ptr<Backend>> make_ort_backend(const PlatformSpec& spec) {
  IG_ASSIGN_OR_RETURN(OrtOptions options, parse_options(spec));
  const char* env_node = std::getenv("INFERGAP_NODE");
  const std::string node = env_node && *env_node ? env_node : find_on_path("node");
  if (node.empty()) return unsupported("ort: node.js not found on PATH (run scripts/setup)");
  const std::string modules = modules_dir();
  if (!std::filesystem::exists(std::filesystem::path(modules) / "onnxruntime-node/package.json"))
    return unsupported("ort: onnxruntime-node is not installed in {} (run scripts/setup)", modules);
  IG_ASSIGN_OR_RETURN(auto runner, OrtRunner::start(node, INFERGAP_ORT_RUNNER, modules));
  return std::unique_ptr<Backend>(std::make_unique<OrtBackend>(options, std::move(runner)));
}

const BackendRegistrar kOrtRegistrar(BackendFactory{
    "ort", "ONNX Runtime (npm onnxruntime-node) through a node.js runner; opt, threads",
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
  // Its share of the default study (preset demo, platform/catalog.h).
  join_preset(out, "demo", {{"ort:opt=disabled,threads=1", 50}, {"ort:opt=all,threads=1", 51}});
  // int8: QDQ as written (float kernels) and fused into ORT's integer kernels.
  join_preset(out, "int8", {{"ort:opt=disabled,threads=1", 50}, {"ort:opt=all,threads=1", 51}});
  join_preset(out, "host", {{"ort:opt=all,threads=1", 50}});
  return out;
});

}  // namespace

}  // namespace ig

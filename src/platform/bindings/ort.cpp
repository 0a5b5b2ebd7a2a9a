// The ort backend's factory and candidate platforms.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "backends/ort/ort_backend.h"
#include "core/spawn.h"
#include "platform/catalog.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {

namespace {

const char* const kLevels[] = {"disabled", "basic", "extended", "all"};

Expected<OrtOptions> parse_options(const PlatformSpec& spec) {
  OrtOptions o;
  for (const auto& [key, value] : spec.options) {
    if (key == "opt") {
      if (std::find(std::begin(kLevels), std::end(kLevels), value) == std::end(kLevels))
        return invalid_argument(
            "platform '{}': opt={} is not one of disabled, basic, extended, all", spec.to_string(),
            value);
      o.opt = value;
    } else if (key == "threads") {
      char* end = nullptr;
      const long n = std::strtol(value.c_str(), &end, 10);
      if (*end != '\0' || n < 1 || n > 256)
        return invalid_argument("platform '{}': threads={} is not a count from 1 to 256",
                                spec.to_string(), value);
      o.threads = static_cast<int>(n);
    } else {
      return invalid_argument("platform '{}': unknown key '{}' (valid: opt, threads)",
                              spec.to_string(), key);
    }
  }
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

// The self-check re-runs a span of nodes with fusion off.
const UnfusedRegistrar kUnfused("ort", {{"opt", "disabled"}});

const CandidateRegistrar kOrtCandidates("ort", [] {
  std::vector<PlatformCandidate> out;
  for (const char* level : kLevels) {
    const std::string l = level;
    const bool sweep = l == "disabled" || l == "all";
    out.push_back({"ort:opt=" + l + ",threads=1",
                   sweep ? std::vector<std::string>{"cpu-sweep"} : std::vector<std::string>{},
                   "graph optimization " + l, false});
  }
  out.push_back({"ort:opt=all,threads=2", {}, "graph optimization all, 2 intra-op threads", false});
  return out;
});

}  // namespace

}  // namespace ig

#include "worker/worker_server.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/process_memory.h"
#include "platform/catalog.h"
#include "platform/registry.h"
#include "platform/spec.h"
#include "tensor/block_cache.h"
#include "worker/knobs_json.h"
#include "worker/protocol.h"

namespace ig {

namespace {

// Set in the re-exec'd process: its environment is already the platform's.
constexpr const char* kStageVar = "INFERGAP_WORKER_STAGE";

int print_catalog() {
  nlohmann::json j;
  j["backends"] = nlohmann::json::array();
  for (const auto& name : BackendRegistry::global().names()) {
    j["backends"].push_back(
        {{"name", name}, {"description", BackendRegistry::global().find(name)->description}});
  }
  j["candidates"] = nlohmann::json::array();
  for (const auto& [backend, c] : PlatformCatalog::global().candidates()) {
    j["candidates"].push_back({{"spec", c.spec},
                               {"backend", backend},
                               {"presets", c.presets},
                               {"note", c.note},
                               {"hidden", c.hidden},
                               {"ranks", c.ranks}});
  }
  j["knobs"] = knobs_to_json(registered_knobs());
  std::printf("%s\n", j.dump().c_str());
  return 0;
}

// Resolves the platform's environment and, when it sets anything, re-execs this executable with
// it, so that libraries which read their knobs in load-time constructors (OpenBLAS, oneDNN's
// dispatcher) initialise under the platform's settings. This first stage runs no backend code
// besides those constructors, under the coordinator's unchanged environment.
Status apply_environment(const PlatformSpec& spec, char** argv) {
  const char* stage = std::getenv(kStageVar);
  if (stage && std::string(stage) == "2") return Status::Ok();
  const BackendFactory* factory = BackendRegistry::global().find(spec.backend);
  if (!factory || !factory->environment) return Status::Ok();
  auto env = factory->environment(spec);
  if (!env.ok()) return env.status();
  if (env->empty()) return Status::Ok();
  for (const auto& [key, value] : *env) ::setenv(key.c_str(), value.c_str(), 1);
  ::setenv(kStageVar, "2", 1);
  ::execv("/proc/self/exe", argv);
  return internal_error("re-exec of the worker for '{}' failed: {}", spec.to_string(),
                        std::strerror(errno));
}

// Freed tensor blocks a worker keeps for its next run: a quarter of the trace budget, at most 64
// MiB (a run's activations of MobileNetV2 at 224 fit in 20); 64 MiB without a budget (0).
size_t freed_blocks_kept(uint64_t trace_budget) {
  constexpr uint64_t kMost = uint64_t{64} << 20;
  return static_cast<size_t>(trace_budget == 0 ? kMost : std::min(trace_budget / 4, kMost));
}

int serve(int fd, const std::string& platform, char** argv) {
  auto hello = [&](const Status& st) {
    (void)wire::send_frame(fd, wire::MsgType::kHello, wire::encode_status(st));
    return st.ok() ? 0 : 1;
  };
  auto spec = parse_platform_spec(platform);
  if (!spec.ok()) return hello(spec.status());
  set_process_is_isolated_worker(true);
  Status env = apply_environment(*spec, argv);
  if (!env.ok()) return hello(env);
  // Children of backends (ORT's node runner) must not hold the protocol socket.
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  auto backend = make_backend(*spec);
  if (!backend.ok()) return hello(backend.status());
  if (hello(Status::Ok()) != 0) return 1;
  for (;;) {
    auto frame = wire::recv_frame(fd);
    if (!frame.ok()) return frame.status().code() == StatusCode::kNotFound ? 0 : 1;
    if (frame->type != wire::MsgType::kRequest) return 1;
    auto request = wire::decode_request(frame->payload);
    RunResult result;
    std::vector<wire::StreamedValue> streamed;
    if (!request.ok()) {
      result.reason = request.status().message();
    } else {
      set_trace_budget_bytes(request->trace_budget_bytes);  // for a backend that bounds its trace
      keep_freed_tensor_blocks(freed_blocks_kept(request->trace_budget_bytes));
      set_verify_every_trace(request->capture.verify_traces);
      bool sent = true;
      result = run_with_backend(**backend, *request, [&](TracedTensor&& t) {
        if (sent) sent = wire::send_frame(fd, wire::MsgType::kTrace, wire::encode_traced(t)).ok();
        streamed.push_back(wire::streamed_of(t));
      });
      if (!sent) return 1;
    }
    const std::string payload = wire::encode_result(result, streamed);
    if (!wire::send_frame(fd, wire::MsgType::kResult, payload).ok()) return 1;
  }
}

}  // namespace

int worker_main(int argc, char** argv) {
  // Weights and values of many MB come and go per node; glibc would otherwise keep the freed ones
  // (its mmap threshold rises past them) and the worker's memory would grow with the model. A
  // larger threshold (8 MiB) took the ViT-B/16 oracle past the 500 MB bound; instead, a bounded
  // cache keeps freed blocks for the next run's tensors of the same sizes (freed_blocks_kept).
  return_freed_tensors_to_the_system();
  std::string platform;
  int fd = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--catalog") return print_catalog();
    if (a == "--platform" && i + 1 < argc) {
      platform = argv[++i];
    } else if (a == "--fd" && i + 1 < argc) {
      fd = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "infergap-worker: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (platform.empty() || fd < 0) {
    std::fprintf(stderr,
                 "usage: infergap-worker --platform SPEC --fd N   (started by infergap)\n"
                 "       infergap-worker --catalog\n");
    return 2;
  }
  return serve(fd, platform, argv);
}

}  // namespace ig

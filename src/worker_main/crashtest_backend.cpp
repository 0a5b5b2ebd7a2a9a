// crashtest: a test-only platform that computes like `ref` but dies on demand, so tests can show
// that a crash or hang in one platform's worker becomes a verdict and the study goes on.
// Registered only in the worker executable.
//   signal=SEGV|ILL|ABRT|FPE|BUS|hang  raised after the first node's outputs were streamed
//   load=SEGV|ILL|...                  raised while the worker process loads, like an OpenBLAS
//                                      core type this CPU cannot run (set through the
//                                      environment, so it proves the re-exec applies it first)
//   delay_ms=N                         each run sleeps N ms first (at most 10000): a campaign
//                                      that lasts long enough to be killed halfway
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "backends/ref/ref_backend.h"
#include "platform/catalog.h"
#include "platform/knobs.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {

namespace {

constexpr const char* kLoadVar = "INFERGAP_CRASHTEST_LOAD_SIGNAL";

const std::map<std::string, int>& signals() {
  static const std::map<std::string, int> table = {
      {"SEGV", SIGSEGV}, {"ILL", SIGILL}, {"ABRT", SIGABRT}, {"FPE", SIGFPE}, {"BUS", SIGBUS}};
  return table;
}

[[noreturn]] void die(const std::string& how) {
  if (how == "hang") {
    for (;;) ::pause();
  }
  const int sig = signals().at(how);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
  std::abort();
}

// Runs at load time, before main, as a library constructor would.
const bool kLoadCheck = [] {
  const char* how = std::getenv(kLoadVar);
  if (how && signals().count(how)) die(how);
  return true;
}();

class CrashTestBackend : public RefBackend {
 public:
  CrashTestBackend(std::string how, int delay_ms) : how_(std::move(how)), delay_ms_(delay_ms) {}
  std::string name() const override { return "crashtest"; }
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    if (how_.empty()) return RefBackend::run_values(model, feeds, on_node);
    return RefBackend::run_values(model, feeds, [&](const Node& n, const std::vector<Value>& o) {
      if (on_node) on_node(n, o);
      die(how_);
    });
  }

 private:
  std::string how_;
  int delay_ms_ = 0;
};

// delay_ms as a number of milliseconds in [0, 10000].
Expected<int> delay_of(const PlatformSpec& spec) {
  auto it = spec.options.find("delay_ms");
  if (it == spec.options.end()) return 0;
  const std::string& v = it->second;
  if (v.empty() || v.size() > 5 || v.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(v) > 10000)
    return invalid_argument("platform '{}': delay_ms={} is not a number of ms in 0..10000",
                            spec.to_string(), v);
  return std::stoi(v);
}

Status check_signal(const PlatformSpec& spec, const std::string& key, bool allow_hang) {
  auto it = spec.options.find(key);
  if (it == spec.options.end() || signals().count(it->second) ||
      (allow_hang && it->second == "hang"))
    return Status::Ok();
  return invalid_argument("platform '{}': {}={} is not one of SEGV, ILL, ABRT, FPE, BUS{}",
                          spec.to_string(), key, it->second, allow_hang ? ", hang" : "");
}

Status check_spec(const PlatformSpec& spec) {
  for (const auto& [k, v] : spec.options) {
    if (k != "signal" && k != "load" && k != "delay_ms")
      return invalid_argument("platform '{}': unknown key '{}' (valid: signal, load, delay_ms)",
                              spec.to_string(), k);
  }
  IG_RETURN_IF_ERROR(check_signal(spec, "signal", true));
  IG_RETURN_IF_ERROR(delay_of(spec).status());
  return check_signal(spec, "load", false);
}

const BackendRegistrar kCrashTestRegistrar(BackendFactory{
    "crashtest",
    "test-only: ref numerics, dies on demand (signal=SEGV|ILL|ABRT|hang, load=ILL), "
    "delay_ms=N",
    [](const PlatformSpec& spec) -> Expected<std::unique_ptr<Backend>> {
      IG_RETURN_IF_ERROR(check_spec(spec));
      auto it = spec.options.find("signal");
      IG_ASSIGN_OR_RETURN(const int delay_ms, delay_of(spec));
      return std::unique_ptr<Backend>(
          std::make_unique<CrashTestBackend>(it == spec.options.end() ? "" : it->second, delay_ms));
    },
    [](const PlatformSpec& spec) -> Expected<std::map<std::string, std::string>> {
      IG_RETURN_IF_ERROR(check_spec(spec));
      std::map<std::string, std::string> env;
      if (auto it = spec.options.find("load"); it != spec.options.end()) env[kLoadVar] = it->second;
      return env;
    }});

// Dying or waiting changes no numerics: no knob names a cause.
const KnobRegistrar kCrashTestKnobs("crashtest",
                                    {{.key = "signal",
                                      .default_value = "",
                                      .values = {"SEGV", "ILL", "ABRT", "FPE", "BUS", "hang"},
                                      .help = "die in every job",
                                      .cause = ""},
                                     {.key = "load",
                                      .default_value = "",
                                      .values = {"ILL"},
                                      .help = "die while loading",
                                      .cause = ""},
                                     {.key = "delay_ms",
                                      .default_value = "0",
                                      .values = {"0", "100"},
                                      .help = "wait before running, in ms",
                                      .cause = "",
                                      .values_form = "milliseconds"}});

const CandidateRegistrar kCrashTestCandidates("crashtest", [] {
  return std::vector<PlatformCandidate>{
      {"crashtest", {"crashtest"}, "computes like ref", true},
      {"crashtest:signal=SEGV", {"crashtest"}, "dies with SIGSEGV in every job", true},
      {"crashtest:load=ILL", {"crashtest"}, "dies with SIGILL while loading", true},
  };
});

}  // namespace

}  // namespace ig

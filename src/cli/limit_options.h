// --max-memory and --timeout, shared by the commands that run models (run, study, campaign), and
// --trace-budget (study, campaign).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "backends/backend.h"
#include "model/limits.h"

namespace ig::cli {

struct LimitArgs {
  std::string max_memory = "half of RAM";
  double timeout = 300;
  // The budget in bytes (0 for the default); call once the command line is parsed.
  uint64_t max_memory_bytes() const {
    return max_memory == "half of RAM" ? 0 : parse_byte_size(max_memory).value();
  }
};

inline void add_limit_options(CLI::App* cmd, LimitArgs* args) {
  cmd->add_option("--max-memory", args->max_memory,
                  "Memory budget that a model's declared tensor sizes and every tensor it "
                  "computes must fit, e.g. 4G or 512M")
      ->check([](const std::string& text) -> std::string {
        auto bytes = parse_byte_size(text);
        return bytes.ok() ? "" : bytes.status().message();
      })
      ->capture_default_str();
  cmd->add_option("--timeout", args->timeout,
                  "Seconds a run may take before its worker is killed (verdict timeout)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

// --trace-budget, for the commands that run studies (study, campaign).
struct TraceBudgetArg {
  std::string text = "256M";
  uint64_t bytes() const { return parse_byte_size(text).value(); }  // once parsed
};

inline void add_trace_budget_option(CLI::App* cmd, TraceBudgetArg* arg) {
  cmd->add_option("--trace-budget", arg->text,
                  "Tensor bytes the coordinator holds in memory, e.g. 64M, all together: half for "
                  "the runs being received and waiting for the store (the rest wait in an "
                  "unlinked temporary file beside the store) or for the facts learned "
                  "afterwards, half for the store's caches. The store's contents do not depend "
                  "on it")
      ->check([](const std::string& text) -> std::string {
        auto bytes = parse_byte_size(text);
        if (!bytes.ok()) return bytes.status().message();
        return *bytes > 0 ? "" : "--trace-budget must be above 0";
      })
      ->capture_default_str();
}

// --verify-traces, for the commands that run studies (study, campaign).
inline void add_verify_traces_flag(CLI::App* cmd, bool* on) {
  cmd->add_flag("--verify-traces", *on,
                fmt::format("Check every traced run's outputs against a plain run where a platform "
                            "traces through another computation (ORT's executed graph). Default: "
                            "the first traced run per model and input shapes, then every {}th; an "
                            "unchecked run says so in its outputs' notes",
                            kTraceCheckEvery));
}

}  // namespace ig::cli

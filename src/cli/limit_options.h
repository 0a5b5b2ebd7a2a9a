// --max-memory and --timeout, shared by the commands that run models (run, study, campaign).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

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

}  // namespace ig::cli

// --shape and --dim, shared by the commands that generate inputs for a model (run, study,
// campaign), and the announcement of the open dims nobody sized.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "inputs/inputs.h"

namespace ig::cli {

inline void add_sizing_options(CLI::App* cmd, std::vector<std::string>* shapes,
                               std::vector<std::string>* dims) {
  cmd->add_option("--shape", *shapes,
                  "NAME=DIMS: an input's whole shape where the model leaves dims open, e.g. "
                  "x=1x3x640x640 (repeatable)");
  cmd->add_option("--dim", *dims,
                  "SYMBOL=SIZE: every input dim the model names SYMBOL, e.g. H=640 (repeatable); "
                  "a file input sizes the symbols it shares with generated ones; open dims nobody "
                  "sizes are 1, and the output says so");
}

// One stderr line per distinct open dim left at its default ("in N models" when several share it),
// and their JSON: [{model, input, index, symbol, value}].
inline nlohmann::json announce_defaulted(
    const char* command, const std::vector<std::pair<std::string, DefaultedDim>>& defaulted) {
  nlohmann::json j = nlohmann::json::array();
  std::vector<std::pair<std::string, int>> lines;  // message, models
  for (const auto& [model, d] : defaulted) {
    j.push_back({{"model", model},
                 {"input", d.input},
                 {"index", d.index},
                 {"symbol", d.symbol},
                 {"value", d.value}});
    const std::string line = d.describe();
    auto it =
        std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == line; });
    if (it == lines.end()) {
      lines.emplace_back(line, 1);
    } else {
      ++it->second;
    }
  }
  for (const auto& [line, n] : lines) {
    if (n > 1) {
      std::fprintf(stderr, "infergap %s: note: %s (in %d models)\n", command, line.c_str(), n);
    } else {
      std::fprintf(stderr, "infergap %s: note: %s\n", command, line.c_str());
    }
  }
  return j;
}

}  // namespace ig::cli

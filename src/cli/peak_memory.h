// The peak memory a study or campaign reports: the coordinator's (this process, read when it is
// asked, so after every step) and each platform's workers' (StudySummary::worker_peak_rss).
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "core/process_memory.h"
#include "study/study.h"

namespace ig::cli {

// {"coordinator": BYTES, "workers": {"<platform>": BYTES, ...}}
inline nlohmann::json peak_rss_json(const StudySummary& s) {
  return {{"coordinator", peak_rss_bytes()}, {"workers", s.worker_peak_rss}};
}

// What the coordinator did with the traced tensors it received: the most held in memory at once
// and all those spilled to its temporary file (bytes).
inline nlohmann::json trace_memory_json(const StudySummary& s) {
  return {{"peak_held", s.trace_peak_held}, {"spilled", s.trace_spilled}};
}

// "peak memory: coordinator N MB, workers up to M MB"
inline std::string peak_memory_text(const StudySummary& s) {
  uint64_t workers = 0;
  for (const auto& [platform, bytes] : s.worker_peak_rss) workers = std::max(workers, bytes);
  constexpr double kMB = 1024.0 * 1024.0;
  return fmt::format("peak memory: coordinator {:.0f} MB, workers up to {:.0f} MB",
                     static_cast<double>(peak_rss_bytes()) / kMB,
                     static_cast<double>(workers) / kMB);
}

}  // namespace ig::cli

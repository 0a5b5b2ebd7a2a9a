// infergap's HTML report: one self-contained file (charts, data and the chart libraries inlined)
// that opens offline.
#pragma once

#include <string>
#include <vector>

#include "report/report_data.h"

namespace ig {

struct ReportSummary {
  std::string path;
  int64_t bytes = 0;
  size_t charts = 0;
  std::vector<std::string> sections;
};

// The page for already collected report data.
struct RenderedReport {
  std::string html;
  size_t charts = 0;
  std::vector<std::string> sections;
};
Expected<RenderedReport> render_report(const nlohmann::json& data, const std::string& title);

// Collects, renders and writes the report of `store` to `path` (written to a temporary file and
// renamed, so a reader never sees half a report).
Expected<ReportSummary> write_report(const Store& store, const std::string& path,
                                     const ReportOptions& options = {});

}  // namespace ig

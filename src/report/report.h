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
                                     const ReportOptions& options);

}  // namespace ig

namespace ig {

// What `study` and `campaign` do at their end: the report next to the store (report.html in the
// store's folder). A report that cannot be written is a warning on stderr naming `command`, not a
// failure: the runs are stored. The path written, "" when none. `knobs`: the backends' knob
// tables (read_catalog), which name the causes.
std::string write_report_beside_store(const Store& store, const std::string& store_path,
                                      const std::string& command, const KnobTables& knobs);

}  // namespace ig

#include "report/report.h"

#include <filesystem>
#include <fstream>

#include "report/assets.h"
#include "report/sections.h"

namespace ig {

Expected<RenderedReport> render_report(const nlohmann::json& data, const std::string& title) {
  const ReportAssets& assets = report_assets();
  if (!assets.embedded())
    return unsupported(
        "this infergap was built without vega/vega-lite/vega-embed: run scripts/setup (npm "
        "install), re-run cmake and rebuild");
  HtmlPage page;
  summary_section(page, data);
  eqc_section(page, data);
  cumulative_section(page, data);
  layers_section(page, data);
  parents_section(page, data);
  dendrogram_section(page, data);
  sweep_section(page, data);
  oracle_section(page, data);
  oracle_origins_section(page, data);
  origins_section(page, data);
  campaign_sections(page, data["campaign"]);
  hosts_section(page, data);
  overview_section(page, data);
  return RenderedReport{page.render(title, assets), page.chart_count(), page.section_ids()};
}

Expected<ReportSummary> write_report(const Store& store, const std::string& path,
                                     const ReportOptions& options) {
  IG_ASSIGN_OR_RETURN(auto data, collect_report_data(store, options));
  const std::string name = std::filesystem::path(store.path()).filename().string();
  IG_ASSIGN_OR_RETURN(auto page, render_report(data, "infergap report: " + name));
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return io_error("{}: cannot write", tmp);
    out.write(page.html.data(), static_cast<std::streamsize>(page.html.size()));
    if (!out) return io_error("{}: write failed", tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return io_error("{}: cannot rename to {}: {}", tmp, path, ec.message());
  return ReportSummary{path, static_cast<int64_t>(page.html.size()), page.charts, page.sections};
}

}  // namespace ig

namespace ig {

std::string write_report_beside_store(const Store& store, const std::string& store_path,
                                      const std::string& command, const KnobTables& knobs) {
  const std::string path =
      (std::filesystem::path(store_path).parent_path() / "report.html").string();
  ReportOptions options;
  options.campaign.knobs = knobs;
  auto report = write_report(store, path, options);
  if (report.ok()) return report->path;
  std::fprintf(stderr, "infergap %s: report not written: %s\n", command.c_str(),
               report.status().message().c_str());
  return "";
}

}  // namespace ig

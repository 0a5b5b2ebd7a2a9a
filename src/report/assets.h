// The chart libraries the HTML report inlines (Vega, Vega-Lite, vega-embed from npm), embedded into
// the binary at build time by embed_assets.cmake: a report is written and opened with nothing
// fetched and no node_modules at run time.
#pragma once

#include <string_view>

namespace ig {

struct ReportAssets {
  std::string_view vega, vega_lite, vega_embed;
  bool embedded() const { return !vega.empty() && !vega_lite.empty() && !vega_embed.empty(); }
};

const ReportAssets& report_assets();

}  // namespace ig

// The report page: sections of escaped HTML, charts as Vega-Lite specs drawn by the inlined
// vega-embed, and a check the page runs on itself (every chart drawn into a non-empty SVG, no
// error) whose result it writes into <body data-charts-ok="yes|no">, for tests and for readers.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/assets.h"

namespace ig {

class HtmlPage {
 public:
  // Adds a chart and returns the element it is drawn into.
  std::string chart(const nlohmann::json& spec);
  // `html` is trusted markup: every string in it must already be escaped.
  void section(const std::string& id, const std::string& title, const std::string& html);
  size_t chart_count() const { return charts_.size(); }
  const std::vector<std::string>& section_ids() const { return ids_; }
  // The whole page; `title` is escaped here.
  std::string render(const std::string& title, const ReportAssets& assets) const;

 private:
  nlohmann::json charts_ = nlohmann::json::object();
  std::string body_, toc_;
  std::vector<std::string> ids_;
};

// Small builders for escaped markup.
std::string tag(const std::string& name, const std::string& text);  // <name>escaped text</name>
std::string paragraph(const std::string& text);                     // escaped <p>
// A table: header and rows are plain text (escaped here).
std::string text_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows);

}  // namespace ig

#include "report/html_writer.h"

#include "report/escape.h"

namespace ig {

namespace {

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em 2em;color:#222}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0;font-size:13px}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right}
td.eqc{text-align:center;font-family:monospace}td.new{font-weight:bold}
td.nondet{background:#ffe9b3}td.fail{background:#f8d0d0}
nav a{margin-right:1em}.absent{color:#777;font-style:italic}.chart{margin:.5em 0}
#ig-status{font-size:12px;color:#777}
#summary{border:2px solid #4a78b5;background:#f3f7fc;padding:.2em 1em .6em;margin-top:.8em}
#summary h2{margin-top:.4em;border:0}#summary ul{padding-left:1.2em;margin:.3em 0}
#summary li{margin:.25em 0}.cls{white-space:nowrap;margin-right:.6em}
)css";

// Records errors before the chart libraries load, so that the page's self-check sees them.
constexpr const char* kErrorTrap = R"js(
window.igErrors = [];
window.addEventListener('error', function (e) { igErrors.push(String(e.message)); });
window.addEventListener('unhandledrejection', function (e) { igErrors.push(String(e.reason)); });
(function () {
  var original = console.error;
  console.error = function () {
    igErrors.push(Array.prototype.map.call(arguments, String).join(' '));
    return original.apply(console, arguments);
  };
})();
)js";

// Draws every chart, then checks that each drew into an SVG with marks and that nothing failed.
constexpr const char* kDrawCharts = R"js(
(async function () {
  var specs = JSON.parse(document.getElementById('ig-charts').textContent);
  var ids = Object.keys(specs), failed = [];
  for (var i = 0; i < ids.length; ++i) {
    try {
      var result = await vegaEmbed('#' + ids[i], specs[ids[i]],
                                   {actions: false, renderer: 'svg', mode: 'vega-lite'});
      await result.view.runAsync();
      var svg = document.querySelector('#' + ids[i] + ' svg');
      if (!svg || svg.querySelectorAll('path,rect,line,text,circle').length === 0)
        failed.push(ids[i]);
    } catch (e) {
      failed.push(ids[i]);
      igErrors.push(ids[i] + ': ' + e);
    }
  }
  var b = document.body.dataset;
  b.charts = ids.length;
  b.chartsDrawn = ids.length - failed.length;
  b.chartsFailed = failed.join(' ');
  b.errors = igErrors.length;
  document.getElementById('ig-errors').textContent = igErrors.join('\n');
  document.getElementById('ig-status').textContent =
      (ids.length - failed.length) + ' of ' + ids.length + ' charts drawn' +
      (igErrors.length ? ', ' + igErrors.length + ' error(s)' : '');
  // Where the summary box lies once everything is drawn (page pixels), for readers' tools and
  // the test that keeps it on the first screen.
  var summary = document.getElementById('summary');
  if (summary) {
    var box = summary.getBoundingClientRect();
    b.summaryTop = Math.round(box.top + window.scrollY);
    b.summaryBottom = Math.round(box.bottom + window.scrollY);
  }
  b.chartsOk = failed.length === 0 && igErrors.length === 0 ? 'yes' : 'no';
})();
)js";

}  // namespace

std::string HtmlPage::chart(const nlohmann::json& spec) {
  const std::string id = "chart-" + std::to_string(charts_.size() + 1);
  charts_[id] = spec;
  return "<div class=\"chart\" id=\"" + id + "\"></div>\n";
}

void HtmlPage::section(const std::string& id, const std::string& title, const std::string& html) {
  ids_.push_back(id);
  toc_ += "<a href=\"#" + html_escape(id) + "\">" + html_escape(title) + "</a>";
  body_ += "<section id=\"" + html_escape(id) + "\">\n<h2>" + html_escape(title) + "</h2>\n" +
           html + "</section>\n";
}

std::string HtmlPage::render(const std::string& title, const ReportAssets& assets) const {
  std::string out;
  out.reserve(assets.vega.size() + assets.vega_lite.size() + assets.vega_embed.size() +
              body_.size() + 65536);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  out += html_escape(title);
  out += "</title>\n<style>";
  out += kStyle;
  out += "</style>\n<script>";
  out += kErrorTrap;
  out += "</script>\n";
  for (std::string_view js : {assets.vega, assets.vega_lite, assets.vega_embed}) {
    out += "<script>";
    out += js;
    out += "</script>\n";
  }
  out += "</head>\n<body>\n<h1>" + html_escape(title) + "</h1>\n<nav>" + toc_ +
         "</nav>\n<p id=\"ig-status\">charts not drawn yet (JavaScript needed)</p>\n";
  out += body_;
  out += "<pre id=\"ig-errors\" hidden></pre>\n<script type=\"application/json\" id=\"ig-charts\">";
  out += json_for_script(charts_);
  out += "</script>\n<script>";
  out += kDrawCharts;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

std::string tag(const std::string& name, const std::string& text) {
  return "<" + name + ">" + html_escape(text) + "</" + name + ">";
}

std::string paragraph(const std::string& text) { return tag("p", text) + "\n"; }

std::string text_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n<tr>";
  for (const auto& h : header) out += tag("th", h);
  out += "</tr>\n";
  for (const auto& r : rows) {
    out += "<tr>";
    for (const auto& cell : r) out += tag("td", cell);
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace ig

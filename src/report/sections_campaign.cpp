// Campaign sections, from analyse_campaign's JSON (docs/FORMATS.md). Every key is present;
// empty ones say so.
#include "report/charts.h"
#include "report/sections.h"

namespace ig {

using json = nlohmann::json;

namespace {

const std::string kNoCampaign = "No campaign data in this store (run `infergap campaign`).";

void support(HtmlPage& page, const json& c) {
  json cells = json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& op : c["support"]["ops"]) {
    for (const auto& [platform, s] : op["platforms"].items()) {
      const double ok = s.value("supported", 0.0), no = s.value("unsupported", 0.0);
      cells.push_back({{"op", op["op"]},
                       {"platform", platform},
                       {"percent", ok + no > 0 ? 100.0 * ok / (ok + no) : 0.0}});
      if (s.contains("reasons") && !s["reasons"].empty())
        rows.push_back({cell_text(op["op"]), platform, cell_text(s["reasons"])});
    }
  }
  std::string html = cells.empty() ? absent(kNoCampaign) : page.chart(support_chart(cells));
  if (!rows.empty()) html += text_table({"op", "platform", "reasons"}, rows);
  std::vector<std::vector<std::string>> pct;
  for (const auto& [platform, p] : c["support"]["percent_supported"].items())
    pct.push_back({platform, cell_text(p)});
  if (!pct.empty()) html += text_table({"platform", "% of op types run everywhere"}, pct);
  page.section("support", "Operator support matrix", html);
}

void failures(HtmlPage& page, const json& c) {
  json bars = json::array();
  for (const auto& [platform, counts] : c["failures"].items())
    for (const auto& [verdict, n] : counts.items())
      if (n.get<double>() > 0)
        bars.push_back({{"platform", platform}, {"verdict", verdict}, {"runs", n}});
  page.section("failures", "Failure taxonomy",
               bars.empty() ? absent(kNoCampaign) : page.chart(failures_chart(bars)));
}

void discrepancy(HtmlPage& page, const json& c) {
  json bars = json::array();
  std::vector<std::vector<std::string>> rows;
  for (const auto& [platform, d] : c["discrepancy"].items()) {
    const json relative = d.value("relative", json::object());
    rows.push_back({platform, cell_text(d["compared"]), cell_text(d["discrepant"]),
                    cell_text(d["rate"]),
                    cell_text(relative.value("lost", json(0))) + " of " +
                        cell_text(relative.value("judged", json(0)))});
    for (const auto& [op, n] : d["by_origin_op"].items())
      bars.push_back({{"platform", platform}, {"op", op}, {"variants", n}});
  }
  std::string html = rows.empty() ? absent(kNoCampaign)
                                  : text_table({"platform", "compared", "discrepant", "rate",
                                                "lost relative precision (of judged)"},
                                               rows);
  if (!bars.empty()) html += page.chart(discrepancy_chart(bars));
  page.section("discrepancy", "Discrepancy by origin op", html);
}

void compiled_eager(HtmlPage& page, const json& c) {
  const json& ce = c["compiled_vs_eager"];
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : ce)
    rows.push_back({cell_text(r["backend"]), cell_text(r["eager"]), cell_text(r["compiled"]),
                    cell_text(r["variants"]), cell_text(r["differ"]), cell_text(r["share"]),
                    cell_text(r["origin_ops"])});
  page.section("compiled", "Compiled vs eager",
               ce.empty() ? absent(kNoCampaign)
                          : page.chart(compiled_eager_chart(ce)) +
                                text_table({"backend", "eager", "compiled", "variants", "differ",
                                            "share", "origin ops"},
                                           rows));
}

void exceptional(HtmlPage& page, const json& c) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : c["exceptional"]) {
    std::string behaviours;
    for (const auto& [b, platforms] : e["behaviours"].items())
      behaviours += (behaviours.empty() ? "" : "; ") + b + ": " + cell_text(platforms);
    rows.push_back(
        {cell_text(e["op"]), cell_text(e["value"]), cell_text(e["variants"]), behaviours});
  }
  page.section("exceptional", "Exceptional values",
               rows.empty() ? absent(kNoCampaign)
                            : text_table({"op", "value", "variants", "behaviours"}, rows));
}

// Only with derived models (campaign --derive): each against its parent on the same platform.
void precision(HtmlPage& page, const json& c) {
  if (!c.contains("precision") || c["precision"]["rows"].empty()) return;
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : c["precision"]["rows"])
    rows.push_back({cell_text(r["platform"]), cell_text(r["derivation"]), cell_text(r["variants"]),
                    cell_text(r["compared"]), cell_text(r["refused"]), cell_text(r["failed"]),
                    cell_text(r["top1_changed"]), cell_text(r["top1_change_rate"]),
                    cell_text(r["median_sqnr_db"])});
  page.section("campaign-precision", "Precision: derived models vs their parent",
               text_table({"platform", "derived", "variants", "compared", "refused", "failed",
                           "top-1 changed", "rate", "median SQNR (dB)"},
                          rows));
}

}  // namespace

void campaign_sections(HtmlPage& page, const json& campaign) {
  support(page, campaign);
  failures(page, campaign);
  discrepancy(page, campaign);
  compiled_eager(page, campaign);
  exceptional(page, campaign);
  precision(page, campaign);
}

}  // namespace ig

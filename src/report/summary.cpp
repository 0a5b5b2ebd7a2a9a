// The report's first screen: the answer before the evidence. The summary box names the classes
// and their platforms, the platforms closest to and farthest from the oracle, where errors and
// classes are born, the causes the knobs name and the label flips, each linking to its section.
#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "report/escape.h"
#include "report/sections.h"

namespace ig {

using json = nlohmann::json;

namespace {

std::string link(const std::string& anchor, const std::string& text) {
  return "<a href=\"#" + anchor + "\">" + html_escape(text) + "</a>";
}

std::string magnitude(const json& v) {
  return v.is_number() ? fmt::format("{:.3g}", v.get<double>()) : cell_text(v);
}

std::string item(const std::string& id, const std::string& html) {
  return "<li id=\"" + id + "\">" + html + "</li>\n";
}

// "2 nodes" / "1 node"; "2 classes" / "1 class".
std::string count_of(size_t n, const std::string& word) {
  const bool es = !word.empty() && word.back() == 's';
  return std::to_string(n) + " " + word + (n == 1 ? "" : es ? "es" : "s");
}

std::string classes_item(const json& data) {
  const json& classes = data["dendrogram"]["classes"];
  if (classes.empty()) return item("summary-classes", html_escape("No run ended ok: no class."));
  constexpr size_t kShown = 24;  // beyond that the dendrogram section lists them
  std::string list;
  for (size_t k = 0; k < classes.size() && k < kShown; ++k) {
    std::string members;
    for (const auto& m : classes[k]["members"])
      members += (members.empty() ? "" : ", ") + cell_text(m);
    list += "<span class=\"cls\"><b>" + std::to_string(k + 1) + "</b> " + html_escape(members) +
            "</span> ";
  }
  if (classes.size() > kShown)
    list += html_escape("+" + std::to_string(classes.size() - kShown) + " more");
  return item("summary-classes",
              link("dendrogram", count_of(classes.size(), "class")) +
                  html_escape(" of graph outputs (platforms bitwise equal in every case): ") +
                  list);
}

std::string oracle_item(const json& data) {
  const json& ranking = data["oracle"]["ranking"];
  if (ranking.empty()) return item("summary-oracle", html_escape("No oracle runs in this store."));
  auto describe = [](const json& e) {
    std::string s =
        "<b>" + html_escape(cell_text(e["platform"])) + "</b> " +
        html_escape("(max abs error " + magnitude(e["max_abs_error"]) + ", max rel error " +
                    magnitude(e["max_rel_error"]) + ", " + cell_text(e["max_ulp"]) + " ULP");
    if (e.contains("steps_max") && e["steps_max"].is_number() && e["steps_max"].get<double>() >= 0)
      s += html_escape(", " + magnitude(e["steps_max"]) + " quantization steps");
    return s + ")";
  };
  std::string html = link("oracle", "Closest to the oracle") + ": " + describe(ranking.front());
  if (ranking.size() > 1) html += "; farthest: " + describe(ranking.back());
  return item("summary-oracle", html);
}

std::string born_item(const json& data) {
  std::string html;
  const json& origins = data["oracle"]["origins"];
  if (data["oracle"]["ranking"].empty()) {
    html = html_escape("No oracle: no error origins");
  } else if (origins.empty()) {
    html = link("oracle-origins", "Error against the oracle") +
           html_escape(" is born nowhere (no node's error jumps 100x over its inputs')");
  } else {
    html = link("oracle-origins", "Error against the oracle is born") + " at " +
           html_escape(count_of(origins.size(), "node")) + ": ";
    for (size_t i = 0; i < origins.size() && i < 3; ++i)
      html += (i ? "; " : "") +
              html_escape(cell_text(origins[i]["platform"]) + " at " +
                          cell_text(origins[i]["op_type"]) + " '" + cell_text(origins[i]["node"]) +
                          "' (x" + magnitude(origins[i]["jump"]) + ")");
    if (origins.size() > 3) html += html_escape("; ...");
  }
  const json& nodes = data["origins"]["nodes"];
  html += ". ";
  if (nodes.empty()) return item("summary-born", html + html_escape("No class splits at a node."));
  std::vector<std::pair<int64_t, std::string>> ops;
  for (const auto& o : data["origins"]["by_op"])
    ops.emplace_back(-o["origins"].get<int64_t>(), o["op_type"].get<std::string>());
  std::sort(ops.begin(), ops.end());
  std::string by_op;
  for (const auto& [n, op] : ops)
    by_op += (by_op.empty() ? "" : ", ") + op + " " + std::to_string(-n);
  return item("summary-born", html + link("origins", "Classes are born") + " at " +
                                  html_escape(count_of(nodes.size(), "node") + ": " + by_op));
}

std::string causes_item(const json& data) {
  const json per_cause = data["origins"].value("per_cause", json::object());
  if (per_cause.empty())
    return item("summary-causes", html_escape("No causes: no class is born at a captured node."));
  std::vector<std::pair<int64_t, std::string>> causes;
  for (const auto& [cause, n] : per_cause.items()) causes.emplace_back(-n.get<int64_t>(), cause);
  std::sort(causes.begin(), causes.end());
  std::string list;
  for (const auto& [n, cause] : causes)
    list += (list.empty() ? "" : ", ") + cause + " " + std::to_string(-n);
  return item("summary-causes", link("origins", "Causes") + ": " + html_escape(list) +
                                    html_escape(" (splits, from the platforms' knobs; ") +
                                    "<code>infergap attribute</code>" +
                                    html_escape(" asks explain where two libraries split)"));
}

std::string flips_item(const json& data) {
  const json& f = data["label_flips"];
  if (data["oracle"]["ranking"].empty() || f["platforms"].empty())
    return item("summary-flips", html_escape("Label flips: no classifier output to compare."));
  std::string html = link("label-flips", "Top-1 label flips") + " against the oracle: ";
  if (f["flips"].get<int64_t>() == 0) {
    int64_t rows = 0;
    for (const auto& p : f["platforms"]) rows = std::max(rows, p["rows"].get<int64_t>());
    return item("summary-flips",
                html + html_escape("none (" + std::to_string(rows) + " rows per platform)"));
  }
  std::string list;
  for (const auto& p : f["platforms"])
    if (p["flips"].get<int64_t>() > 0)
      list += (list.empty() ? "" : "; ") + cell_text(p["platform"]) + " " + cell_text(p["flips"]) +
              " of " + cell_text(p["rows"]) + " rows";
  return item("summary-flips", html + html_escape(list));
}

}  // namespace

void summary_section(HtmlPage& page, const json& data) {
  const json& o = data["overview"];
  std::string html = paragraph(
      "Store " + cell_text(o["store"]) + ": " + cell_text(o["runs"]) + " runs of " +
      std::to_string(o["models"].size()) + " model(s) on " + std::to_string(o["platforms"].size()) +
      " platform(s)" +
      (o["oracles"].empty() ? ", no oracle" : ", oracle " + cell_text(o["oracles"][0])) + ".");
  html += "<ul>\n" + classes_item(data) + oracle_item(data) + born_item(data) + causes_item(data) +
          flips_item(data) + "</ul>\n";
  page.section("summary", "Summary", html);
}

}  // namespace ig

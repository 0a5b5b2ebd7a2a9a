#include "report/sections.h"

#include <fmt/format.h>

#include "report/charts.h"
#include "report/escape.h"

namespace ig {

using json = nlohmann::json;

std::string absent(const std::string& text) {
  return "<p class=\"absent\">" + html_escape(text) + "</p>\n";
}

std::string cell_text(const json& v) {
  if (v.is_null()) return "-";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void overview_section(HtmlPage& page, const json& data) {
  const json& o = data["overview"];
  std::string html = paragraph(
      "Store " + o["store"].get<std::string>() + ": " + std::to_string(o["runs"].get<int64_t>()) +
      " runs of " + std::to_string(o["models"].size()) + " model(s) on " +
      std::to_string(o["platforms"].size()) + " platform(s)" +
      (o["oracles"].empty() ? ", no oracle" : ", oracle " + cell_text(o["oracles"][0])) + ".");
  std::vector<std::vector<std::string>> rows;
  for (const auto& h : o["hosts"])
    rows.push_back({cell_text(h["id"]), cell_text(h["cpu"]), cell_text(h["microarchitecture"]),
                    cell_text(h["cores"]), cell_text(h["flags"]), cell_text(h["hostname"]),
                    cell_text(h["tag"])});
  html +=
      tag("h3", "Hosts (fingerprints)") +
      text_table({"id", "CPU", "microarchitecture", "cores", "CPU flags", "hostname", "tag"}, rows);
  rows.clear();
  for (const auto& p : o["platforms"])
    rows.push_back({cell_text(p["label"]), cell_text(p["spec"]), cell_text(p["host"]),
                    cell_text(p["library"])});
  html += tag("h3", "Platforms") + text_table({"label", "spec", "host", "library"}, rows);
  rows.clear();
  for (const auto& m : o["models"]) rows.push_back({cell_text(m["name"]), cell_text(m["inputs"])});
  html += tag("h3", "Models") + text_table({"model", "inputs"}, rows);
  rows.clear();
  for (const auto& [v, n] : o["verdicts"].items()) rows.push_back({v, cell_text(n)});
  html += tag("h3", "Verdicts") + text_table({"verdict", "runs"}, rows);
  page.section("overview", "Hosts, platforms, models and verdicts", html);
}

void eqc_section(HtmlPage& page, const json& data) {
  const json& e = data["eqc"];
  if (e["cases"].empty()) return page.section("eqc", "EQC matrix", absent("No runs stored."));
  std::string html = paragraph(
      "Letter: the platform's equivalence class of the graph outputs in that case (bitwise "
      "identical outputs share a letter). Bold: the first platform of a new class; shaded: "
      "repetitions disagreed (nondeterministic); red: the verdict of a failed run.");
  html += "<table>\n<tr><th>platform</th>";
  for (size_t i = 0; i < e["cases"].size(); ++i)
    html += "<th title=\"" + html_escape(cell_text(e["cases"][i]["label"])) + "\">[" +
            std::to_string(i + 1) + "]</th>";
  html += "</tr>\n";
  for (size_t p = 0; p < e["platforms"].size(); ++p) {
    html += "<tr>" + tag("th", cell_text(e["platforms"][p]));
    for (const auto& cell : e["cells"][p]) {
      std::string cls = "eqc";
      if (cell["new"].get<bool>()) cls += " new";
      if (cell["nondeterministic"].get<bool>()) cls += " nondet";
      if (!cell["ok"].get<bool>()) cls += " fail";
      html += "<td class=\"" + cls + "\">" + html_escape(cell_text(cell["text"])) +
              (cell["nondeterministic"].get<bool>() ? "~" : "") + "</td>";
    }
    html += "</tr>\n";
  }
  html += "<tr><th>EQCs</th>";
  for (const auto& c : e["cases"]) html += "<td class=\"num\">" + cell_text(c["eqcs"]) + "</td>";
  html += "</tr>\n<tr><th>RP (bits)</th>";
  for (const auto& c : e["cases"]) {
    const int rp = c["remaining_precision"].get<int>();
    html += "<td class=\"num\">" + (rp < 0 ? std::string("-") : std::to_string(rp)) + "</td>";
  }
  html += "</tr>\n</table>\n";
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < e["cases"].size(); ++i)
    rows.push_back({"[" + std::to_string(i + 1) + "]", cell_text(e["cases"][i]["label"])});
  html += text_table({"case", "model/input"}, rows);
  rows.clear();
  for (const auto& n : data["nondeterministic"])
    rows.push_back({cell_text(n["platform"]), cell_text(n["case"]), cell_text(n["distribution"])});
  if (!rows.empty())
    html += tag("h3", "Nondeterminism") +
            text_table({"platform", "case", "repetitions per distinct output"}, rows);
  page.section("eqc", "EQC matrix", html);
}

void cumulative_section(HtmlPage& page, const json& data) {
  const json& points = data["cumulative"];
  page.section("cumulative", "Cumulative EQCs over platforms",
               points.empty() ? absent("No platforms.")
                              : paragraph("Distinct classes (outputs equal in every case) as "
                                          "platforms are added in study order.") +
                                    page.chart(cumulative_chart(points)));
}

void layers_section(HtmlPage& page, const json& data) {
  std::string html;
  for (const auto& m : data["layers"]) {
    html += tag("h3", cell_text(m["model"]) + " (" + cell_text(m["cases"]) + " case(s))");
    html += page.chart(layers_chart(m["rows"]));
    // What each platform said it did per node (the algorithm a convolution used, a fallback, a
    // fused group): the paper's per-layer algorithm traces (Fig 3), as a table.
    std::string notes;
    for (const auto& r : m["rows"]) {
      const json row_notes = r.value("notes", json::object());
      for (const auto& [platform, note] : row_notes.items())
        notes += "<tr><td>" + html_escape(cell_text(r["index"])) + " " +
                 html_escape(cell_text(r["node"])) + "</td><td>" + html_escape(platform) +
                 "</td><td>" + html_escape(cell_text(note)) + "</td></tr>\n";
    }
    if (!notes.empty())
      html +=
          "<details><summary>What platforms did per node</summary>\n<table><tr><th>node</th>"
          "<th>platform</th><th>note</th></tr>\n" +
          notes + "</table></details>\n";
  }
  if (html.empty())
    html = absent("No per-layer capture in this store (study with --layers all).");
  else
    html = paragraph(
               "Per node, the most EQCs and the fewest remaining bits over the model's "
               "cases; activation and pooling layers are marked. Quantized values (integer "
               "tensors, DequantizeLinear outputs) show the most quantization steps between "
               "classes instead of bits.") +
           html;
  page.section("layers", "Along the model", html);
}

void dendrogram_section(HtmlPage& page, const json& data) {
  const json& d = data["dendrogram"];
  std::string html;
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : d["classes"]) {
    std::string members;
    for (const auto& m : c["members"]) members += (members.empty() ? "" : ", ") + cell_text(m);
    rows.push_back({cell_text(c["label"]), members});
  }
  if (!d.contains("drawing")) {
    html = absent(d["classes"].empty() ? "No class." : "One class: nothing to cluster.");
  } else {
    html = paragraph(
               "Classes (platforms with equal outputs in every case) joined by complete "
               "linkage: a join's height is the remaining precision of the joined set.") +
           page.chart(dendrogram_chart(d["drawing"]));
  }
  page.section("dendrogram", "Remaining-precision dendrogram",
               html + text_table({"class", "platforms"}, rows));
}

void sweep_section(HtmlPage& page, const json& data) {
  const json& s = data["sweep"];
  std::string html;
  if (s["present"].get<bool>()) {
    html = paragraph(
               "Per model: the fewest remaining bits and the most EQCs over its cases, "
               "against the multiply-accumulates of its Conv, Gemm and MatMul nodes.") +
           page.chart(sweep_chart(s["points"]));
  } else {
    html = absent("Absent: the store holds no models of different sizes to sweep over.");
  }
  if (!s["uncounted"].empty())
    html += absent("Not counted (model file missing or shapes unknown): " + s["uncounted"].dump());
  page.section("sweep", "Deviation vs work", html);
}

void oracle_section(HtmlPage& page, const json& data) {
  const json& o = data["oracle"];
  if (o["ranking"].empty())
    return page.section("oracle", "Error vs oracle", absent("No oracle runs in this store."));
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : o["ranking"])
    rows.push_back({cell_text(e["rank"]), cell_text(e["platform"]), cell_text(e["max_ulp"]),
                    cell_text(e["max_abs_error"]), cell_text(e["max_rel_error"]),
                    cell_text(e["remaining_precision"])});
  std::vector<std::vector<std::string>> flips;
  for (const auto& f : data["label_flips"]["platforms"]) {
    std::string where;
    for (const auto& c : f["cases"])
      where += (where.empty() ? "" : "; ") + cell_text(c["case"]) + " " + cell_text(c["flips"]);
    flips.push_back({cell_text(f["platform"]), cell_text(f["rows"]), cell_text(f["flips"]), where});
  }
  page.section("oracle", "Error vs oracle",
               paragraph("Against " + cell_text(o["oracle"]) + ", closest first.") +
                   page.chart(oracle_chart(o["ranking"])) +
                   text_table({"rank", "platform", "max ULP", "max abs error", "max rel error",
                               "RP vs rounded oracle"},
                              rows) +
                   "<h3 id=\"label-flips\">Top-1 label flips against the oracle</h3>\n" +
                   (flips.empty() ? absent("No classifier-like graph output (floating, last axis "
                                           "of two or more) to compare.")
                                  : paragraph("Rows of each graph output whose argmax over the "
                                              "last axis differs from the oracle's.") +
                                        text_table({"platform", "rows", "flips", "cases"}, flips)));
}

void oracle_origins_section(HtmlPage& page, const json& data) {
  const json& o = data["oracle"];
  const char* title = "Where the error against the oracle is born";
  if (o["ranking"].empty())
    return page.section("oracle-origins", title, absent("No oracle runs in this store."));
  if (o["origins"].empty())
    return page.section("oracle-origins", title,
                        absent("No platform's error is born at any traced node (its own error, "
                               "replayed, at least half its output's; not replayed, output error "
                               "at least 100 times its inputs'), or no per-layer capture."));
  std::vector<std::vector<std::string>> rows;
  for (const auto& e : o["origins"]) {
    std::string node = cell_text(e["op_type"]) + " '" + cell_text(e["node"]) + "'";
    if (e["covers"].size() > 1)
      node += std::string(e["fused"].get<bool>() ? " (fused: " : " (untraced: ") +
              std::to_string(e["covers"].size()) + " nodes)";
    const json& sc = e["self_check"];
    std::string check = cell_text(sc["verdict"]);
    if (sc.contains("reason")) check += ": " + cell_text(sc["reason"]);
    // Three significant digits: these are magnitudes, not bits.
    auto magnitude = [](const json& v) {
      return v.is_number() ? fmt::format("{:.3g}", v.get<double>()) : cell_text(v);
    };
    // The error the node adds itself, where the study replayed it (docs/ORACLE.md).
    const std::string own = e.contains("replay") ? magnitude(e["replay"]["local_error"]) : "-";
    rows.push_back({cell_text(e["platform"]), cell_text(e["case"]), node,
                    magnitude(e["input_error"]), magnitude(e["output_error"]), magnitude(e["jump"]),
                    own, check});
  }
  page.section(
      "oracle-origins", title,
      paragraph("Per platform, worst first: nodes where their error against the oracle "
                "(max |y - oracle| / max |oracle| over the tensor) is born. Where the study "
                "replayed the node alone on the oracle from the platform's own inputs, born "
                "means its own error is at least half its output's (in steps for a quantized "
                "output); elsewhere, that its output error is at least 100 times its inputs'. "
                "Where the output is off by more than 1e-2 "
                "while the inputs agree to 1e-5, the node was re-run alone (self-check): "
                "kernel, suspect-fusion, suspect-adapter, integer-kernel or ill-conditioned.") +
          text_table({"platform", "case", "node", "input error", "output error", "jump",
                      "own error (replayed)", "self-check"},
                     rows));
}

void origins_section(HtmlPage& page, const json& data) {
  const json& o = data["origins"];
  if (o["nodes"].empty())
    return page.section("origins", "Divergence origins",
                        absent("No class splits at any captured node (or no per-layer capture)."));
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : o["nodes"])
    rows.push_back({cell_text(n["case"]), cell_text(n["node"]), cell_text(n["op_type"]),
                    cell_text(n["classes_before"]) + " -> " + cell_text(n["classes_after"]),
                    cell_text(n["remaining_precision"]), cell_text(n.value("causes", json()))});
  std::vector<std::vector<std::string>> causes;
  const json per_cause = o.value("per_cause", json::object());
  for (const auto& [cause, count] : per_cause.items()) causes.push_back({cause, cell_text(count)});
  page.section("origins", "Divergence origins",
               paragraph("Nodes where an EQC splits: platforms with equal inputs computed "
                         "different outputs, by operator type.") +
                   page.chart(origins_chart(o["by_op"])) +
                   text_table({"case", "node", "op", "classes", "RP", "causes"}, rows) +
                   paragraph("Splits per cause, from the knobs in which the platforms on either "
                             "side differ (library: two libraries whose orders the specs do not "
                             "name; `infergap attribute` asks explain):") +
                   text_table({"cause", "splits"}, causes));
}

void hosts_section(HtmlPage& page, const json& data) {
  const json& h = data["hosts"];
  if (h["hosts"].get<size_t>() < 2)
    return page.section("flags", "CPU-flag clusters vs EQCs",
                        absent("One host: no CPU-flag clusters to compare."));
  std::vector<std::vector<std::string>> rows;
  for (const auto& fc : h["flag_clusters"])
    rows.push_back(
        {cell_text(fc["flags"]), cell_text(fc["hosts"]), cell_text(fc["aligned_with_eqcs"])});
  page.section("flags", "CPU-flag clusters vs EQCs",
               paragraph("Flags that always occur together, and the cases whose classes separate "
                         "exactly the hosts that have them.") +
                   text_table({"flags", "hosts", "aligned with EQCs in"}, rows));
}

}  // namespace ig

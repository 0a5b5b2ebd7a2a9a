#include "analysis/triage/markdown.h"

#include <map>

#include "analysis/triage/findings.h"

namespace ig::triage {

namespace {

std::string str(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string joined(const nlohmann::json& list, const char* sep = ", ") {
  std::string s;
  if (list.is_array())
    for (const auto& v : list)
      s += (s.empty() ? "" : sep) + (v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

// The finding's operator as listed: an origin the campaign could not locate (a compiler's whole
// graph, a campaign without layers) names the operators its reduction came down to, when few.
std::string shown_op(const nlohmann::json& e) {
  std::string op = str(e, "op");
  const nlohmann::json reduced = e.value("reduced", nlohmann::json::object());
  const nlohmann::json nodes = reduced.value("nodes", nlohmann::json::array());
  if (op != "(unlocated)" || !reduced.value("done", false) || nodes.empty() || nodes.size() > 3)
    return op;
  std::string ops;
  for (const auto& n : nodes) ops += (ops.empty() ? "" : "+") + str(n, "op");
  return op + " reduced to " + ops;
}

std::string what_differs(const std::string& kind) {
  if (kind == kCrash) return "the platform crashes or hangs on the model";
  if (kind == kError) return "the platform fails with an error on the model";
  if (kind == kRefusal) return "the platform refuses the model (an operator it does not support)";
  if (kind == kWrong) return "the platform's outputs lie beyond tolerance of the fp64 oracle";
  if (kind == kCompiled) return "the platform's compiled mode gives other bits than its eager mode";
  if (kind == kLostPrecision)
    return "within the absolute tolerance, the platform's results keep too few significant bits "
           "of the fp64 oracle's (exact inputs, relative error above rtol)";
  return "the platform handles an exceptional value (NaN, Inf, denormal, signed zero, overflow) "
         "unlike the fp64 oracle rounded to the output type: '" +
         kind.substr(kind.find(':') + 1) + "'";
}

void minimal_model(std::string& md, const nlohmann::json& e) {
  const auto& rep = e["representative"];
  const auto& red = e.value("reduced", nlohmann::json::object());
  md += "## Minimal model\n\n";
  if (red.value("done", false)) {
    md += fmt::format(
        "Reduced by `infergap reduce` ({} criterion, {} vs {}) from {} to {} node(s):\n\n",
        str(red, "criterion"), str(red, "a"), str(red, "b"), red.value("original_nodes", 0),
        red["nodes"].size());
  } else {
    md += fmt::format(
        "Not reduced: {}. The smallest variant showing it has {} computing node(s):\n\n",
        str(red, "why_not").empty() ? "reduce did not run" : str(red, "why_not"),
        rep.value("nodes", 0));
  }
  for (const auto& n : red.value("nodes", nlohmann::json::array()))
    md += fmt::format("- `{}` ({})\n", str(n, "name"), str(n, "op"));
  if (!str(red, "a_vs_b").empty()) md += "\nOn it: " + str(red, "a_vs_b") + ".\n";
  md += "\n";
}

void cause(std::string& md, const nlohmann::json& e) {
  const auto& ex = e.value("explain", nlohmann::json());
  md += "## Cause\n\n";
  if (!ex.is_object()) {
    md += "explain does not apply to this kind of finding.\n\n";
  } else if (!str(ex, "error").empty()) {
    md += "explain did not run: " + str(ex, "error") + "\n\n";
  } else {
    const std::string causes = joined(ex.value("cause", nlohmann::json::array()));
    if (ex.value("exact", false)) {
      md += fmt::format(
          "`infergap explain` on node `{}` of the representative run: reproduced bit "
          "for bit by `{}`; cause: {}.\n\n",
          str(ex, "node"), str(ex, "emulator"),
          causes.empty() ? "none (the reference's own order)" : causes);
    } else {
      md += fmt::format(
          "`infergap explain` on node `{}` of the representative run: no emulator "
          "configuration reproduces it bit for bit in {} tried; the closest, `{}`, "
          "agrees in {} of {} mantissa bits{}.\n\n",
          str(ex, "node"), ex.value("tried", 0), str(ex, "emulator"),
          ex.value("remaining_precision", -1), ex.value("mantissa_bits", 0),
          causes.empty() ? "" : " (its knobs: " + causes + ")");
    }
  }
  const auto& j = e.value("judgement", nlohmann::json::object());
  md += fmt::format("**{}**: {}.", str(j, "verdict"), str(j, "why"));
  if (!str(j, "spec").empty()) md += " Specification: " + str(j, "spec") + ".";
  md += "\n\n";
}

}  // namespace

std::string finding_readme(const nlohmann::json& e) {
  const auto& rep = e["representative"];
  std::string md = fmt::format("# {}: {} — {} on {}\n\n", str(e, "id"), str(e, "kind"), shown_op(e),
                               str(e, "family"));
  md += fmt::format("Signature: `{}`\n\n", str(e, "signature"));
  md += "## What differs\n\n" + what_differs(str(e, "kind")) + ".\n\n";
  md += fmt::format("- Platforms: {}\n", joined(e["platforms"]));
  md += fmt::format("- Compared with: {}\n", str(rep, "against"));
  md += fmt::format(
      "- Hits: {} variant(s) of {} architecture(s) ({} variant × platform runs); "
      "seen by {} triage run(s)\n",
      e.value("variant_count", 0), e.value("architecture_count", 0), e.value("hits", 0),
      e.value("triage_runs", 0));
  md += fmt::format("- Representative: `{}` ({} computing nodes), run {} on `{}`\n\n",
                    str(rep, "model_path"), rep.value("nodes", 0), rep.value("run", 0),
                    str(rep, "platform"));
  md += "## Error\n\n" + (str(rep, "detail").empty() ? "(none)" : str(rep, "detail")) + "\n\n";
  minimal_model(md, e);
  cause(md, e);
  md += "## Reproduce\n\n";
  md +=
      "`sh repro.sh` runs `reduced.onnx` on the inputs in `inputs/` with `infergap run` on the "
      "two platforms and compares their outputs: it exits 0 while the difference is there and "
      "nonzero once it has vanished.\n";
  return md;
}

std::string findings_markdown(const nlohmann::json& index, const std::string& note,
                              const FindingLinks& links) {
  const auto& all = index["findings"];
  std::string md = "# Findings\n\n";
  if (!note.empty()) md += note + "\n\n";
  md += fmt::format(
      "{} distinct finding(s). Generated by `infergap triage --markdown`; each row's "
      "folder holds its README.md, reduced.onnx, inputs and repro.sh.",
      all.size());
  if (!links.base.empty() && links.present.empty())
    md += fmt::format(
        " No folder is kept beside this list (none is in `{}/`): `experiments/findings/run` "
        "writes every folder under its output folder's `findings/`.",
        links.base);
  else if (!links.base.empty())
    md += fmt::format(
        " The {} linked rows' folders are in `{}/`; the others are not kept here: "
        "`experiments/findings/run` writes every folder under "
        "`out/experiments/findings/findings/`.",
        links.present.size(), links.base);
  md += "\n\n";
  md +=
      "| id | kind | operator | family | platforms | variants | architectures | verdict |\n"
      "|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, int> per_platform, per_kind, per_verdict;
  for (const auto& e : all) {
    const std::string verdict = str(e.value("judgement", nlohmann::json()), "verdict");
    const std::string folder = str(e, "folder");
    std::string id = str(e, "id");
    if (links.base.empty())
      id = fmt::format("[{}]({}/README.md)", id, folder);
    else if (links.present.count(folder))
      id = fmt::format("[{}]({}/{}/README.md)", id, links.base, folder);
    md += fmt::format("| {} | {} | `{}` | {} | {} | {} | {} | {} |\n", id, str(e, "kind"),
                      shown_op(e), str(e, "family"), joined(e["platforms"], "<br>"),
                      e.value("variant_count", 0), e.value("architecture_count", 0), verdict);
    for (const auto& p : e["platforms"]) ++per_platform[p.get<std::string>()];
    ++per_kind[str(e, "kind")];
    ++per_verdict[verdict];
  }
  md += "\n## Findings per platform\n\n| platform | findings |\n|---|---|\n";
  for (const auto& [p, n] : per_platform) md += fmt::format("| {} | {} |\n", p, n);
  md += "\n## Findings per kind\n\n| kind | findings |\n|---|---|\n";
  for (const auto& [k, n] : per_kind) md += fmt::format("| {} | {} |\n", k, n);
  md += "\n## Findings per verdict\n\n| verdict | findings |\n|---|---|\n";
  for (const auto& [v, n] : per_verdict) md += fmt::format("| {} | {} |\n", v, n);
  return md;
}

}  // namespace ig::triage

#include "views/study_json.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

namespace ig {

nlohmann::json partition_json(const Partition& p) {
  return {{"classes", p.classes}, {"missing", p.missing}};
}

nlohmann::json case_json(const CaseData& c, const Partition& outputs) {
  nlohmann::json j{{"model", c.model_name},      {"model_hash", c.model},
                   {"input", c.input},           {"input_label", c.input_label},
                   {"outputs", c.outputs},       {"eqc_count", outputs.classes.size()},
                   {"classes", outputs.classes}, {"missing", outputs.missing}};
  j["runs"] = nlohmann::json::object();
  for (const auto& [platform, pc] : c.runs) {
    auto& arr = j["runs"][platform] = nlohmann::json::array();
    for (const auto& r : pc.reps)
      arr.push_back({{"run", r.run_id},
                     {"repetition", r.repetition},
                     {"verdict", verdict_name(r.verdict)},
                     {"reason", r.reason}});
  }
  return j;
}

nlohmann::json layer_json(const LayerRow& r) {
  return {{"node_index", r.node_index},
          {"node", r.node},
          {"op_type", r.op_type},
          {"values", r.values},
          {"eqc_count", r.partition.classes.size()},
          {"classes", r.partition.classes},
          {"remaining_precision", r.remaining_precision},
          {"deviating_share", r.deviating_share},
          {"notes", r.notes},
          {"split", r.split},
          {"merge", r.merge}};
}

nlohmann::json origin_json(const Origin& o) {
  nlohmann::json j{{"node_index", o.node_index},
                   {"node", o.node},
                   {"op_type", o.op_type},
                   {"attributes", o.attributes},
                   {"inputs", o.inputs},
                   {"outputs", o.outputs},
                   {"remaining_precision", o.remaining_precision}};
  if (o.steps) {
    j.update(steps_off_json(*o.steps));
    j["by_steps"] = o.by_steps;
  }
  if (!o.covers.empty()) j["covers"] = o.covers;
  return j;
}

nlohmann::json tolerance_json(const ToleranceAdvice& t) {
  return {{"model", t.model_name}, {"output", t.output}, {"reference", t.reference},
          {"tensors", t.tensors},  {"atol", t.atol},     {"rtol", t.rtol},
          {"ulp", t.ulp}};
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string cell_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

size_t width_of(const std::vector<std::string>& names, size_t floor) {
  size_t w = floor;
  for (const auto& n : names) w = std::max(w, n.size());
  return w;
}

}  // namespace

void print_csv_matrix(const std::string& corner, const std::vector<std::string>& rows,
                      const std::vector<std::string>& columns, const nlohmann::json& cells) {
  std::printf("%s", csv_field(corner).c_str());
  for (const auto& c : columns) std::printf(",%s", csv_field(c).c_str());
  std::printf("\n");
  for (const auto& r : rows) {
    std::printf("%s", csv_field(r).c_str());
    for (const auto& v : cells[r]) std::printf(",%s", csv_field(cell_text(v)).c_str());
    std::printf("\n");
  }
}

std::string steps_text(const nlohmann::json& steps);  // below

namespace {

void print_cases(const nlohmann::json& j, const std::vector<std::string>& columns) {
  std::printf("Cases:\n");
  for (size_t i = 0; i < columns.size(); ++i)
    std::printf("  [%zu] %s: %zu EQC(s), remaining precision %d\n", i + 1, columns[i].c_str(),
                j["cases"][i]["eqc_count"].get<size_t>(),
                j["cases"][i]["remaining_precision"].get<int>());
}

void print_eqc_matrix(const nlohmann::json& j, const std::vector<std::string>& labels, int pw,
                      size_t cases) {
  std::printf("\nEQC matrix (letter = class of the outputs; * new class; ~ nondeterministic)\n");
  std::printf("%-*s", pw, "platform");
  for (size_t i = 0; i < cases; ++i)
    std::printf(" %6s", ("[" + std::to_string(i + 1) + "]").c_str());
  std::printf("\n");
  for (const auto& l : labels) {
    std::printf("%-*s", pw, l.c_str());
    for (const auto& v : j["eqc_matrix"][l]) std::printf(" %6s", cell_text(v).c_str());
    std::printf("\n");
  }
}

void print_rp_matrix(const nlohmann::json& j, const std::vector<std::string>& labels, int pw) {
  std::printf("\nRemaining precision (mantissa bits agreeing, min over cases and outputs)\n");
  std::printf("%-*s", pw + 5, "");
  for (size_t i = 0; i < labels.size(); ++i) std::printf(" %3zu", i + 1);
  std::printf("\n");
  for (size_t i = 0; i < labels.size(); ++i) {
    std::printf("%3zu  %-*s", i + 1, pw, labels[i].c_str());
    for (const auto& v : j["rp_matrix"][i]) {
      const int bits = v.get<int>();
      std::printf(" %3s", bits < 0 ? "-" : std::to_string(bits).c_str());
    }
    std::printf("\n");
  }
}

// The ranking against the oracle and where each platform's error is born (with an oracle only).
void print_oracle_sections(const nlohmann::json& j, int pw) {
  std::printf("\nError against the oracle (%s), closest first\n",
              j["oracle"].get<std::string>().c_str());
  // Quantized outputs are off by whole steps: ULPs and RP say nothing there (quant_steps.h).
  bool steps = false;
  for (const auto& e : j["oracle_ranking"]) steps |= e.contains("steps_max");
  std::printf("rank %-*s %10s %12s %12s %6s\n", pw, "platform", steps ? "max steps" : "max ulp",
              "max abs", "max rel", steps ? ">=1 st" : "RP");
  for (const auto& e : j["oracle_ranking"]) {
    const std::string first = !steps ? std::to_string(e["max_ulp"].get<uint64_t>())
                              : e.contains("steps_max") ? steps_text(e["steps_max"])
                                                        : "-";
    const std::string last = !steps ? std::to_string(e["remaining_precision"].get<int>())
                             : e.contains("steps_share")
                                 ? fmt::format("{:.3g}%", 100 * e["steps_share"].get<double>())
                                 : "-";
    std::printf("%4d %-*s %10s %12.4g %12.4g %6s\n", e["rank"].get<int>(), pw,
                e["platform"].get<std::string>().c_str(), first.c_str(),
                e["max_abs_error"].get<double>(), e["max_rel_error"].get<double>(), last.c_str());
  }
  std::printf(
      "\nOrigins against the oracle (where each platform's error is born: the error a span adds "
      "itself, replayed on the oracle from its own inputs, is >= %g of its output's; without a "
      "replay, output error >= %g x its inputs'; `origins --oracle` lists all)\n",
      kReplayShare, kBornJump);
  print_oracle_origins(j["oracle_origins"], 3);
}

void print_nondeterminism_and_tolerance(const nlohmann::json& j) {
  for (const auto& n : j["nondeterministic"])
    std::printf("\nnondeterministic: %s on %s: outputs over %d repetitions: %s\n",
                n["platform"].get<std::string>().c_str(), n["case"].get<std::string>().c_str(),
                n["repetitions"].get<int>(), n["distribution"].dump().c_str());
  std::printf("\nTolerance advice (each bound alone accepts every platform)\n");
  for (const auto& t : j["tolerance"])
    std::printf("  %s %s vs %s: atol %.3g, rtol %.3g, ulp %llu\n",
                t["model"].get<std::string>().c_str(), t["output"].get<std::string>().c_str(),
                t["reference"].get<std::string>().c_str(), t["atol"].get<double>(),
                t["rtol"].get<double>(), static_cast<unsigned long long>(t["ulp"].get<uint64_t>()));
}

void print_hosts(const nlohmann::json& j) {
  std::printf("\nHosts\n");
  for (const auto& h : j["hosts"])
    std::printf(
        "  %s %s (%s, %d cores, %zu flags)%s\n", h["id"].get<std::string>().c_str(),
        h["cpu"].get<std::string>().c_str(), h["microarchitecture"].get<std::string>().c_str(),
        h["cores"].get<int>(), h["flags"].get<size_t>(),
        h["tag"].get<std::string>().empty() ? "" : (" tag " + h["tag"].get<std::string>()).c_str());
  for (const auto& fc : j["flag_clusters"])
    std::printf("  flag cluster %s on %zu host(s), aligned with EQCs in %zu case(s)\n",
                fc["flags"].dump().c_str(), fc["hosts"].size(), fc["aligned_with_eqcs"].size());
}

void print_layer_row(const nlohmann::json& r) {
  const int rp = r["remaining_precision"].get<int>();
  std::string worst_platform;
  double worst = -1;
  const nlohmann::json errors = r.value("oracle_errors", nlohmann::json::object());
  for (const auto& [platform, e] : errors.items()) {
    const double v = e.is_number() ? e.get<double>() : HUGE_VAL;
    if (v > worst) worst = v, worst_platform = platform;
  }
  std::string precision = rp < 0 ? "RP   -" : fmt::format("RP {:>3}", rp);
  std::string error = worst < 0 ? "-" : error_text(worst);
  // A quantized value: steps between the classes, and the platform furthest from the oracle in
  // steps (its share of elements a step off), instead of bits and relative errors.
  if (r.value("quantized", false)) {
    precision = "st " + (r.contains("steps_max") ? fmt::format("{:>3}", steps_text(r["steps_max"]))
                                                 : std::string("  -"));
    worst = -1;
    for (const auto& [platform, st] : r["oracle_steps"].items()) {
      const double v = st["steps_max"].is_number() ? st["steps_max"].get<double>() : HUGE_VAL;
      if (v <= worst) continue;
      worst = v, worst_platform = platform;
      error = steps_text(st["steps_max"]) + " st";
      worst_platform += fmt::format(" ({:.3g}% >= 1 step)", 100 * st["steps_share"].get<double>());
    }
  }
  std::printf("  %4lld %-16s %-28.28s %3zu EQC  %s %-2s %9s  %s\n",
              static_cast<long long>(r["node_index"].get<int64_t>()),
              r["op_type"].get<std::string>().c_str(), r["node"].get<std::string>().c_str(),
              r["eqc_count"].get<size_t>(), precision.c_str(),
              (std::string(r["split"].get<bool>() ? "S" : "") + (r["merge"].get<bool>() ? "M" : ""))
                  .c_str(),
              error.c_str(), worst_platform.c_str());
  // What platforms said they did here (algorithm, fallback), e.g. cuda's chosen algorithm.
  const nlohmann::json notes = r.value("notes", nlohmann::json::object());
  for (const auto& [platform, note] : notes.items())
    std::printf("         %s: %s\n", platform.c_str(), note.get<std::string>().c_str());
}

// Case `index` (from 0) layer by layer, when the study captured its layers.
void print_case_layers(const nlohmann::json& c, size_t index, const std::string& column) {
  if (!c.contains("layers")) return;
  std::printf("\nLayers of [%zu] %s (S = an EQC splits here, M = classes merge)\n", index + 1,
              column.c_str());
  std::printf("  %4s %-16s %-28s %18s %9s  %s\n", "#", "op", "node", "", "max error",
              "(platform with it, against the oracle)");
  for (const auto& r : c["layers"]) print_layer_row(r);
  const nlohmann::json hidden = c.value("hidden_data_movement", nlohmann::json::object());
  if (!hidden.empty()) {
    std::string list;
    int64_t total = 0;
    for (const auto& [op, n] : hidden.items()) {
      list += (list.empty() ? "" : ", ") + op + " x" + std::to_string(n.get<int64_t>());
      total += n.get<int64_t>();
    }
    std::printf("  (%lld data-movement node(s) hidden: %s; --all-nodes shows them)\n",
                static_cast<long long>(total), list.c_str());
  }
}

void print_attribution(const nlohmann::json& a) {
  std::printf(
      "\nCauses of the EQC splits, from the platforms' knobs (%lld split(s); `infergap "
      "attribute` lists them and asks explain between libraries)\n",
      static_cast<long long>(a["split_count"].get<int64_t>()));
  for (const auto& [cause, n] : a["per_cause"].items())
    std::printf("  %-20s %lld\n", cause.c_str(), static_cast<long long>(n.get<int64_t>()));
  if (a["unexplained"].get<int64_t>() > 0)
    std::printf("  %-20s %lld\n", "(no cause)",
                static_cast<long long>(a["unexplained"].get<int64_t>()));
}

}  // namespace

void print_text_report(const StudyData& study, const nlohmann::json& j,
                       const std::vector<std::string>& columns) {
  const auto labels = study.labels();
  const int pw = static_cast<int>(width_of(labels, 8));
  print_cases(j, columns);
  print_eqc_matrix(j, labels, pw, columns.size());
  print_rp_matrix(j, labels, pw);
  if (!j["oracle_ranking"].empty()) print_oracle_sections(j, pw);
  print_nondeterminism_and_tolerance(j);
  print_hosts(j);
  for (size_t i = 0; i < columns.size(); ++i) print_case_layers(j["cases"][i], i, columns[i]);
  if (j.contains("attribution")) print_attribution(j["attribution"]);
}

std::string error_text(double e) {
  if (!std::isfinite(e)) return std::isnan(e) ? "nan" : "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", e);
  return buf;
}

std::string steps_text(const nlohmann::json& steps) {
  return steps.is_number() ? fmt::format("{:.3g}", steps.get<double>()) : steps.get<std::string>();
}

namespace {

// A measure in JSON (analysis/json_measure.h): a number, "inf"/"-inf", or null for NaN.
std::string measure_text(const nlohmann::json& v) {
  return v.is_number() ? error_text(v.get<double>()) : v.is_null() ? "nan" : v.get<std::string>();
}

// What the local replay found (analysis/oracle/origins.h).
std::string replay_text(const nlohmann::json& o) {
  if (!o.contains("replay")) return std::string();
  const auto& r = o["replay"];
  return "; its own error, replayed on " + r["spec"].get<std::string>() +
         " from its inputs: " + measure_text(r["local_error"]) +
         (r.contains("local_steps_max") ? ", " + steps_text(r["local_steps_max"]) + " step(s)"
                                        : std::string());
}

}  // namespace

std::string origin_text(const nlohmann::json& o) {
  const auto& covers = o["covers"];
  std::string span;
  if (covers.size() > 1) {
    span = std::string(o["fused"].get<bool>() ? " (fused group of " : " (untraced, with ") +
           std::to_string(covers.size()) + " nodes: " + covers[0].get<std::string>() +
           (covers.size() > 2 ? " ... " : ", ") + covers.back().get<std::string>() + ")";
  }
  return o["op_type"].get<std::string>() + " '" + o["node"].get<std::string>() + "'" + span +
         " on " + o["case"].get<std::string>() + ": error " + measure_text(o["output_error"]) +
         " from inputs' " + measure_text(o["input_error"]) + " (x" + measure_text(o["jump"]) + ")" +
         (o.contains("steps_max")
              ? fmt::format("; {} step(s) off, {:.3g}% of elements >= 1 step (step {:.3g}), "
                            "inputs {} step(s) off",
                            steps_text(o["steps_max"]), 100 * o["steps_share"].get<double>(),
                            o["step"].get<double>(),
                            o["input_steps_max"].is_null() ? std::string("?")
                                                           : steps_text(o["input_steps_max"]))
              : std::string()) +
         replay_text(o);
}

void print_oracle_origins(const nlohmann::json& origins, size_t per_platform) {
  if (origins.empty()) {
    std::printf(
        "no platform's error against the oracle is born anywhere (output error >= %g x "
        "its inputs')\n",
        kBornJump);
    return;
  }
  std::map<std::string, size_t> shown, total;
  for (const auto& o : origins) ++total[o["platform"].get<std::string>()];
  std::string current;
  for (const auto& o : origins) {
    const std::string platform = o["platform"].get<std::string>();
    if (platform != current) {
      current = platform;
      std::printf("%s: %zu origin(s)%s\n", platform.c_str(), total[platform],
                  total[platform] > per_platform
                      ? (", worst " + std::to_string(per_platform)).c_str()
                      : "");
    }
    if (shown[platform]++ >= per_platform) continue;
    std::printf("  %s\n", origin_text(o).c_str());
    const auto& sc = o["self_check"];
    if (sc["verdict"] != "not-needed")
      std::printf("    self-check: %s: %s\n", sc["verdict"].get<std::string>().c_str(),
                  sc.value("reason", "").c_str());
  }
}

}  // namespace ig

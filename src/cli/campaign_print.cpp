// Terminal tables of a campaign analysis (analysis/campaign/campaign.h).
#include <cstdio>

#include "cli/campaign_print.h"

#include <string>

namespace ig::cli {

namespace {

using nlohmann::json;

int width(const json& platforms, int floor) {
  int w = floor;
  for (const auto& p : platforms) w = std::max(w, static_cast<int>(p.get<std::string>().size()));
  return w;
}

std::string counts_text(const json& by_op) {
  std::string s;
  for (const auto& [op, n] : by_op.items())
    s += (s.empty() ? "" : ", ") + op + " " + std::to_string(n.get<int64_t>());
  return s.empty() ? "-" : s;
}

void print_support(const json& a, const json& platforms, int pw) {
  std::printf("\nOperator support (variants run / refused; %% of op types supported everywhere)\n");
  std::printf("%-*s %6s", pw, "platform", "%");
  for (const auto& row : a["support"]["ops"])
    std::printf(" %12.12s", row["op"].get<std::string>().c_str());
  std::printf("\n");
  for (const auto& p : platforms) {
    const std::string ps = p.get<std::string>();
    const json& pct = a["support"]["percent_supported"];
    std::printf("%-*s %6.1f", pw, ps.c_str(), pct.contains(ps) ? pct[ps].get<double>() : 0.0);
    for (const auto& row : a["support"]["ops"]) {
      const json& c = row["platforms"].contains(ps) ? row["platforms"][ps] : json();
      const std::string cell = c.is_null() ? "-"
                                           : std::to_string(c["supported"].get<int64_t>()) + "/" +
                                                 std::to_string(c["unsupported"].get<int64_t>());
      std::printf(" %12s", cell.c_str());
    }
    std::printf("\n");
  }
  for (const auto& row : a["support"]["ops"])
    for (const auto& [p, c] : row["platforms"].items())
      for (const auto& r : c["reasons"])
        std::printf("  %s on %s: %s\n", row["op"].get<std::string>().c_str(), p.c_str(),
                    r.get<std::string>().c_str());
}

void print_failures(const json& a, const json& platforms, int pw) {
  std::printf("\nFailure taxonomy (runs by verdict)\n%-*s", pw, "platform");
  const char* verdicts[] = {"ok",      "unsupported", "load-error", "crash",
                            "timeout", "nan-inf",     "error"};
  for (const char* v : verdicts) std::printf(" %11s", v);
  std::printf("\n");
  for (const auto& p : platforms) {
    std::printf("%-*s", pw, p.get<std::string>().c_str());
    for (const char* v : verdicts)
      std::printf(" %11lld",
                  static_cast<long long>(a["failures"][p.get<std::string>()][v].get<int64_t>()));
    std::printf("\n");
  }
}

void print_discrepancy(const json& a, int pw) {
  std::printf(
      "\nDiscrepancy against the oracle (rtol %g, atol %g), by op at the divergence origin\n",
      a["tolerance"]["rtol"].get<double>(), a["tolerance"]["atol"].get<double>());
  std::printf("%-*s %9s %10s %7s  origin ops\n", pw, "platform", "compared", "discrepant", "rate");
  for (const auto& [p, d] : a["discrepancy"].items())
    std::printf("%-*s %9lld %10lld %6.2f%%  %s\n", pw, p.c_str(),
                static_cast<long long>(d["compared"].get<int64_t>()),
                static_cast<long long>(d["discrepant"].get<int64_t>()),
                100 * d["rate"].get<double>(), counts_text(d["by_origin_op"]).c_str());
  bool any = false;
  for (const auto& [p, d] : a["discrepancy"].items()) any |= d["relative"]["judged"] > 0;
  if (!any) return;
  std::printf(
      "\nLost relative precision within tolerance (single elementwise operators on exact inputs,"
      " fewer than 8 bits right)\n");
  std::printf("%-*s %9s %10s  ops\n", pw, "platform", "judged", "lost");
  for (const auto& [p, d] : a["discrepancy"].items())
    std::printf("%-*s %9lld %10lld  %s\n", pw, p.c_str(),
                static_cast<long long>(d["relative"]["judged"].get<int64_t>()),
                static_cast<long long>(d["relative"]["lost"].get<int64_t>()),
                counts_text(d["relative"]["by_op"]).c_str());
}

void print_compiled_vs_eager(const json& a) {
  std::printf("\nCompiled vs eager (outputs bitwise different between modes)\n");
  if (a["compiled_vs_eager"].empty())
    std::printf("  (no platform pair differing only in a mode knob)\n");
  for (const auto& c : a["compiled_vs_eager"])
    std::printf("  %s: %s vs %s: %lld of %lld variants differ (%.1f%%); origin ops: %s\n",
                c["backend"].get<std::string>().c_str(), c["compiled"].get<std::string>().c_str(),
                c["eager"].get<std::string>().c_str(),
                static_cast<long long>(c["differ"].get<int64_t>()),
                static_cast<long long>(c["variants"].get<int64_t>()),
                100 * c["share"].get<double>(), counts_text(c["origin_ops"]).c_str());
}

void print_exceptional(const json& a) {
  std::printf("\nExceptional values (behaviour by op and injected value)\n");
  if (a["exceptional"].empty()) std::printf("  (no variant with injected values)\n");
  for (const auto& e : a["exceptional"]) {
    std::printf("  %s with %s (%lld variants):", e["op"].get<std::string>().c_str(),
                e["value"].get<std::string>().c_str(),
                static_cast<long long>(e["variants"].get<int64_t>()));
    for (const auto& [b, ps] : e["behaviours"].items()) {
      std::printf(" %s [", b.c_str());
      for (size_t i = 0; i < ps.size(); ++i)
        std::printf("%s%s", i ? ", " : "", ps[i].get<std::string>().c_str());
      std::printf("]");
    }
    std::printf("\n");
  }
}

// A number of the precision table ("inf" and null as they are), times `scale`, then `unit`.
std::string figure(const json& x, double scale, const char* unit) {
  if (x.is_null()) return "-";
  if (x.is_string()) return x.get<std::string>();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%s", scale * x.get<double>(), unit);
  return buf;
}

// Shown only when the campaign has derived models (campaign --derive).
void print_precision(const json& a, int pw) {
  if (!a.contains("precision") || a["precision"]["rows"].empty()) return;
  std::printf("\nPrecision: derived models vs their parent on the same platform (%lld derived)\n",
              static_cast<long long>(a["precision"]["derived"].get<int64_t>()));
  std::printf("%-*s %6s %8s %8s %7s %6s %8s %8s %15s\n", pw, "platform", "kind", "variants",
              "compared", "refused", "failed", "top1 chg", "rate", "median SQNR dB");
  for (const auto& r : a["precision"]["rows"]) {
    std::printf(
        "%-*s %6s %8lld %8lld %7lld %6lld %8lld %8s %15s\n", pw,
        r["platform"].get<std::string>().c_str(), r["derivation"].get<std::string>().c_str(),
        static_cast<long long>(r["variants"].get<int64_t>()),
        static_cast<long long>(r["compared"].get<int64_t>()),
        static_cast<long long>(r["refused"].get<int64_t>()),
        static_cast<long long>(r["failed"].get<int64_t>() + r["parent_failed"].get<int64_t>()),
        static_cast<long long>(r["top1_changed"].get<int64_t>()),
        figure(r["top1_change_rate"], 100, "%").c_str(),
        figure(r["median_sqnr_db"], 1, "").c_str());
  }
}

}  // namespace

void print_campaign_tables(const json& a) {
  const json& platforms = a["platforms"];
  const int pw = width(platforms, 10);
  std::printf("\nCampaign: %lld variants x %zu platforms, oracle %s\n",
              static_cast<long long>(a["variants"].get<int64_t>()), platforms.size(),
              a["oracle"].get<std::string>().c_str());
  print_support(a, platforms, pw);
  print_failures(a, platforms, pw);
  print_discrepancy(a, pw);
  print_compiled_vs_eager(a);
  print_exceptional(a);
  print_precision(a, pw);
}

}  // namespace ig::cli

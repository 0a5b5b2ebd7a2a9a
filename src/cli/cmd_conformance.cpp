// infergap conformance DIR [--json]: the ONNX backend test suite on the reference backend.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "conformance/conformance.h"

namespace ig::cli {

namespace {

struct ConformanceArgs {
  std::string dir;
  bool json = false;
  ConformanceOptions options;
  int min_pass = -1;
  bool verbose = false;
};

void add_conformance_options(CLI::App* cmd, ConformanceArgs& a) {
  cmd->add_option("dir", a.dir, "Folder of test cases (e.g. /usr/include/onnx/backend/test/data)")
      ->required();
  cmd->add_flag("--json", a.json, "Print results as JSON");
  cmd->add_option("--rtol", a.options.rtol, "Relative tolerance")->capture_default_str();
  cmd->add_option("--atol", a.options.atol, "Absolute tolerance")->capture_default_str();
  cmd->add_option("--filter", a.options.filter, "Only cases whose suite/name contains this");
  cmd->add_option("-j,--jobs", a.options.jobs, "Cases run at once")->capture_default_str();
  cmd->add_option("--timeout", a.options.timeout_seconds, "Seconds per case")
      ->capture_default_str();
  cmd->add_option("--min-pass", a.min_pass, "Exit 1 if fewer cases pass");
  cmd->add_flag("-v,--verbose", a.verbose, "Print every case, not only the summary");
}

// Runs the cases, printing each one (--verbose) or a progress line on a terminal's stderr.
std::vector<CaseResult> run_with_progress(const std::vector<ConformanceCase>& cases,
                                          const ConformanceArgs& a) {
  const bool tty = isatty(STDERR_FILENO);
  auto results = run_cases(cases, a.options, [&](const CaseResult& r, size_t done, size_t total) {
    if (a.verbose && !a.json) {
      std::printf("%-12s %s/%s%s%s\n", r.verdict.c_str(), r.suite.c_str(), r.name.c_str(),
                  r.reason.empty() ? "" : ": ", r.reason.c_str());
    } else if (tty) {
      std::fprintf(stderr, "\r[%zu/%zu] %s/%s\033[K", done, total, r.suite.c_str(), r.name.c_str());
    }
  });
  if (tty) std::fprintf(stderr, "\r\033[K");
  return results;
}

// `counts` by value: looking a verdict up adds it.
void print_results_json(const std::vector<CaseResult>& results, std::map<std::string, int> counts,
                        const ConformanceOptions& options) {
  nlohmann::json j;
  j["passed"] = counts["pass"];
  j["failed"] = counts["fail"];
  j["unsupported"] = counts["unsupported"];
  j["errors"] = counts["error"];
  j["total"] = results.size();
  j["rtol"] = options.rtol;
  j["atol"] = options.atol;
  j["cases"] = nlohmann::json::array();
  for (const auto& r : results) {
    j["cases"].push_back({{"suite", r.suite},
                          {"name", r.name},
                          {"verdict", r.verdict},
                          {"reason", r.reason},
                          {"seconds", r.seconds}});
  }
  std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
}

void run_conformance(const ConformanceArgs& a, int& exit_code) {
  auto cases = discover_cases(a.dir);
  if (cases.empty()) {
    std::fprintf(stderr, "infergap conformance: no test cases (model.onnx) under '%s'\n",
                 a.dir.c_str());
    exit_code = kExitBadInput;
    return;
  }
  if (!a.options.filter.empty()) {
    std::erase_if(cases, [&](const ConformanceCase& c) {
      return (c.suite + "/" + c.name).find(a.options.filter) == std::string::npos;
    });
  }
  const auto results = run_with_progress(cases, a);
  std::map<std::string, int> counts;
  for (const auto& r : results) ++counts[r.verdict];
  if (a.json) {
    print_results_json(results, counts, a.options);
  } else {
    std::printf(
        "conformance: %d passed, %d failed, %d unsupported, %d errors of %zu (rtol %g, atol "
        "%g)\n",
        counts["pass"], counts["fail"], counts["unsupported"], counts["error"], results.size(),
        a.options.rtol, a.options.atol);
  }
  if (a.min_pass >= 0 && counts["pass"] < a.min_pass) {
    std::fprintf(stderr, "infergap conformance: %d passed, below the floor of %d\n", counts["pass"],
                 a.min_pass);
    exit_code = kExitFailures;
  }
}

}  // namespace

void add_conformance_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ConformanceArgs>();
  auto* cmd =
      app.add_subcommand("conformance", "Run ONNX backend test cases on the reference backend");
  add_conformance_options(cmd, *args);
  cmd->callback([args, &exit_code] { run_conformance(*args, exit_code); });
}

}  // namespace ig::cli

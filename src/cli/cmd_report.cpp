// infergap report --store DB -o report.html [--model M] [--json]
// One self-contained HTML file (charts and chart libraries inlined) that opens offline.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "report/report.h"
#include "study/restore_tensors.h"
#include "views/study_json.h"
#include "worker/probe.h"

namespace ig::cli {

namespace {

nlohmann::json report_summary_json(const ReportSummary& s) {
  return {{"report", s.path}, {"bytes", s.bytes}, {"charts", s.charts}, {"sections", s.sections}};
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string store, output = "report.html", model;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("report", "Write a self-contained HTML report of a store");
  cmd->add_option("--store", args->store, "Study store")->required();
  cmd->add_option("-o,--output", args->output, "HTML file to write")->capture_default_str();
  cmd->add_option("--model", args->model, "Only this model (name or hash prefix)");
  cmd->add_flag("--json", args->json, "Print what was written as JSON");
  cmd->callback([args, &exit_code] {
    auto written = [&]() -> Expected<ReportSummary> {
      IG_ASSIGN_OR_RETURN(auto store, open_store_restoring(args->store, "report"));
      IG_ASSIGN_OR_RETURN(const Catalog catalog, read_catalog(default_worker_executable()));
      ReportOptions options;
      options.model = args->model;
      options.campaign.knobs = catalog.knobs;
      return write_report(*store, args->output, options);
    }();
    if (!written.ok()) {
      std::fprintf(stderr, "infergap report: %s\n", written.status().message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    if (args->json)
      std::printf("%s\n", report_summary_json(*written).dump(2).c_str());
    else
      std::printf("%s: %lld bytes, %zu charts\n", written->path.c_str(),
                  static_cast<long long>(written->bytes), written->charts);
  });
}

}  // namespace ig::cli

// infergap: find where neural-network inference diverges across platforms, and why.
#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "core/status.h"
#include "core/version.h"

int main(int argc, char** argv) {
  CLI::App app{"infergap: find where neural-network inference diverges across platforms, and why"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("infergap ") + ig::kInfergapVersion);
  int exit_code = ig::cli::kExitOk;
  ig::cli::add_run_command(app, exit_code);
  ig::cli::add_invariance_command(app, exit_code);
  ig::cli::add_generate_command(app, exit_code);
  ig::cli::add_inspect_command(app, exit_code);
  ig::cli::add_conformance_command(app, exit_code);
  ig::cli::add_diff_command(app, exit_code);
  ig::cli::add_zoo_command(app, exit_code);
  ig::cli::add_platforms_command(app, exit_code);
  ig::cli::add_study_command(app, exit_code);
  ig::cli::add_merge_command(app, exit_code);
  ig::cli::add_compare_command(app, exit_code);
  ig::cli::add_origins_command(app, exit_code);
  ig::cli::add_export_command(app, exit_code);
  ig::cli::add_mutate_command(app, exit_code);
  ig::cli::add_quantize_command(app, exit_code);
  ig::cli::add_convert_command(app, exit_code);
  ig::cli::add_mma_command(app, exit_code);
  ig::cli::add_precision_command(app, exit_code);
  ig::cli::add_overflow_command(app, exit_code);
  ig::cli::add_campaign_command(app, exit_code);
  ig::cli::add_boundary_command(app, exit_code);
  ig::cli::add_report_command(app, exit_code);
  ig::cli::add_import_command(app, exit_code);
  ig::cli::add_explain_command(app, exit_code);
  ig::cli::add_attribute_command(app, exit_code);
  ig::cli::add_reduce_command(app, exit_code);
  ig::cli::add_triage_command(app, exit_code);
  ig::cli::add_work_command(app, exit_code);
  ig::cli::add_hosts_command(app, exit_code);
  ig::cli::add_status_command(app, exit_code);
  ig::cli::set_invocation(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : ig::cli::kExitBadInput;
  } catch (const ig::StatusError& e) {
    std::fprintf(stderr, "infergap: %s\n", e.status().to_string().c_str());
    return ig::cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "infergap: internal error: %s\n", e.what());
    return 3;
  }
  return exit_code;
}

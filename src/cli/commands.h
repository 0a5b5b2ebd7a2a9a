// Each subcommand registers itself on the app and returns the exit code through `exit_code`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace ig::cli {

void add_run_command(CLI::App& app, int& exit_code);
void add_invariance_command(CLI::App& app, int& exit_code);
void add_generate_command(CLI::App& app, int& exit_code);
void add_conformance_command(CLI::App& app, int& exit_code);
void add_diff_command(CLI::App& app, int& exit_code);
void add_zoo_command(CLI::App& app, int& exit_code);
void add_platforms_command(CLI::App& app, int& exit_code);
void add_study_command(CLI::App& app, int& exit_code);
void add_merge_command(CLI::App& app, int& exit_code);
void add_compare_command(CLI::App& app, int& exit_code);
void add_origins_command(CLI::App& app, int& exit_code);
void add_export_command(CLI::App& app, int& exit_code);
void add_mutate_command(CLI::App& app, int& exit_code);
void add_quantize_command(CLI::App& app, int& exit_code);
void add_convert_command(CLI::App& app, int& exit_code);
void add_mma_command(CLI::App& app, int& exit_code);
void add_precision_command(CLI::App& app, int& exit_code);
void add_overflow_command(CLI::App& app, int& exit_code);
void add_campaign_command(CLI::App& app, int& exit_code);
void add_boundary_command(CLI::App& app, int& exit_code);
// `zoo conv`, registered under `zoo`.
void add_zoo_conv_command(CLI::App& zoo, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_inspect_command(CLI::App& app, int& exit_code);
void add_import_command(CLI::App& app, int& exit_code);
void add_explain_command(CLI::App& app, int& exit_code);
void add_attribute_command(CLI::App& app, int& exit_code);
void add_reduce_command(CLI::App& app, int& exit_code);
void add_triage_command(CLI::App& app, int& exit_code);
void add_work_command(CLI::App& app, int& exit_code);
void add_hosts_command(CLI::App& app, int& exit_code);
void add_status_command(CLI::App& app, int& exit_code);

// The command line as given (main records it): a fleet plan keeps a command's own arguments, and
// `work` runs jobs with this executable.
void set_invocation(int argc, char** argv);
const std::vector<std::string>& invocation();

// Exit codes: 0 ok, 1 the job ran but something failed (a platform, a case), 2 bad usage or input,
// 3 the environment failed (disk, database, I/O): the same command may succeed when run again,
// so a fleet worker retries a job that exits 3 and gives up at once on one that exits 2.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailures = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitEnvironment = 3;
inline int exit_code_for(const Status& st) {
  return st.code() == StatusCode::kIoError || st.code() == StatusCode::kInternal ? kExitEnvironment
                                                                                 : kExitBadInput;
}

}  // namespace ig::cli

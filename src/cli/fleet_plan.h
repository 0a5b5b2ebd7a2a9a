// `study ... --plan` and `campaign ... --plan`: register the command as a fleet plan in a
// PostgreSQL store instead of running it (fleet/queue.h); `infergap work` processes run it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "core/status.h"

namespace ig::cli {

struct PlanArgs {
  bool plan = false;
  bool every_host = false;
  int shards = 16;
};

void add_plan_options(CLI::App* cmd, PlanArgs* args);

// With --plan: checks the command's input with `validate` (what would fail every job fails
// here), registers the command and prints the plan; true when it did (or failed, with exit_code
// set): the command then stops. Without --plan: false, the command runs.
bool register_fleet_plan(const std::string& command, const std::string& store, const PlanArgs& args,
                         bool json, int& exit_code, const std::function<Status()>& validate);

}  // namespace ig::cli

#include "cli/fleet_plan.h"

#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "fleet/queue.h"

namespace ig::cli {

namespace {

std::vector<std::string> invocation_storage;

// The command's own arguments from the command line, less those a job sets itself.
std::vector<std::string> plan_arguments(const std::string& command) {
  const auto& all = invocation();
  std::vector<std::string> out;
  size_t i = 1;
  while (i < all.size() && all[i] != command) ++i;
  for (++i; i < all.size(); ++i) {
    const std::string& a = all[i];
    bool dropped = false;
    for (const char* with_value : {"--store", "--shard", "--shards"}) {
      if (a == with_value) {
        ++i;
        dropped = true;
      } else if (a.starts_with(std::string(with_value) + "=")) {
        dropped = true;
      }
    }
    if (dropped || a == "--plan" || a == "--every-host" || a == "--json" || a == "--no-report")
      continue;
    out.push_back(a);
  }
  return out;
}

}  // namespace

void set_invocation(int argc, char** argv) { invocation_storage.assign(argv, argv + argc); }
const std::vector<std::string>& invocation() { return invocation_storage; }

void add_plan_options(CLI::App* cmd, PlanArgs* args) {
  cmd->add_flag("--plan", args->plan,
                "With a postgresql:// store: register the work as jobs for `infergap work` "
                "processes on any hosts, and return");
  cmd->add_option("--shards", args->shards, "With --plan: jobs to split the work into")
      ->capture_default_str();
  cmd->add_flag("--every-host", args->every_host,
                "With --plan: every job once per host fingerprint (each kind of machine runs "
                "every case), instead of once in all");
}

bool register_fleet_plan(const std::string& command, const std::string& store, const PlanArgs& args,
                         bool json, int& exit_code, const std::function<Status()>& validate) {
  if (!args.plan) return false;
  auto fail = [&](const std::string& message) {
    std::fprintf(stderr, "infergap %s: %s\n", command.c_str(), message.c_str());
    exit_code = kExitBadInput;
    return true;
  };
  if (!is_postgres_url(store))
    return fail(
        fmt::format("--plan needs a postgresql:// store (got '{}'); without a server, "
                    "split the work with --shard I/N",
                    redact_url(store)));
  if (Status st = validate(); !st.ok()) return fail(st.message());
  auto conn = pg_connect(store);
  if (!conn.ok()) return fail(conn.status().message());
  std::error_code ec;
  FleetPlan plan{command, plan_arguments(command), std::filesystem::current_path(ec).string(),
                 args.shards, args.every_host};
  auto id = register_plan(**conn, plan);
  if (!id.ok()) return fail(id.status().message());
  const nlohmann::json j{{"store", redact_url(store)},
                         {"plan", *id},
                         {"jobs", args.shards},
                         {"every_host", args.every_host},
                         {"command", command},
                         {"args", plan.args},
                         {"cwd", plan.cwd}};
  if (json) {
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf(
        "plan %lld: %d jobs of `infergap %s` registered in %s; run `infergap work --store URL` "
        "on any hosts (paths resolve from %s)\n",
        static_cast<long long>(*id), args.shards, command.c_str(), redact_url(store).c_str(),
        plan.cwd.c_str());
  }
  return true;
}

}  // namespace ig::cli

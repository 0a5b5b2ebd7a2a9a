// infergap platforms [--preset NAME]... [-p SPEC]... [--refresh] [--json]
// infergap platforms --knobs [--json]
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/strings.h"
#include "platform/knobs.h"
#include "worker/knobs_json.h"
#include "worker/probe.h"

namespace ig::cli {

namespace {

struct PlatformsArgs {
  std::vector<std::string> presets;
  std::vector<std::string> platforms;
  bool refresh = false;
  bool json = false;
  bool knobs = false;
  double timeout = 60;
};

void add_platforms_options(CLI::App* cmd, PlatformsArgs& a) {
  cmd->add_option("--preset", a.presets,
                  "Only this preset's platforms: all (default), a backend name, cpu-sweep, ...");
  cmd->add_option("-p,--platform", a.platforms, "Probe these specs too (repeatable)");
  cmd->add_flag("--refresh", a.refresh, "Probe again instead of using cached results");
  cmd->add_option("--timeout", a.timeout, "Seconds a probe may take")->capture_default_str();
  cmd->add_flag("--json", a.json, "Print results as JSON");
  cmd->add_flag("--knobs", a.knobs,
                "List each backend's knobs (default, the cause it steers, eager value, values) "
                "instead of probing");
}

// The knob tables the bindings declare (platform/knobs.h), one backend after another.
void print_knobs(const KnobTables& tables) {
  for (const auto& [backend, table] : tables) {
    std::printf("%s\n", backend.c_str());
    for (const auto& k : table) {
      std::string cause = k.cause.empty() ? "-" : k.cause;
      for (const auto& vc : k.value_causes) cause += ", " + vc.value + ": " + vc.cause;
      std::string values = join_names(k.values);
      if (const std::string form = knob_values_form(k); !form.empty())
        values = form + (values.empty() ? "" : "; e.g. " + values);
      std::printf("  %-14s default %-10s cause %s%s\n      %s\n      values: %s\n", k.key.c_str(),
                  k.default_value.empty() ? "(none)" : k.default_value.c_str(), cause.c_str(),
                  k.eager_value.empty() ? "" : ("; eager: " + k.eager_value).c_str(),
                  k.help.c_str(), values.c_str());
    }
  }
}

// The presets' platforms, then those given with -p, each once; with neither, preset `all`.
Expected<std::vector<std::string>> specs_to_probe(const Catalog& catalog, const PlatformsArgs& a) {
  std::vector<std::string> specs;
  auto add = [&](const std::string& s) {
    if (std::find(specs.begin(), specs.end(), s) == specs.end()) specs.push_back(s);
  };
  std::vector<std::string> presets = a.presets;
  if (presets.empty() && a.platforms.empty()) presets.push_back("all");
  for (const auto& p : presets) {
    IG_ASSIGN_OR_RETURN(const std::vector<std::string> list, preset_specs(catalog, p));
    for (const auto& s : list) add(s);
  }
  for (const auto& s : a.platforms) add(s);
  return specs;
}

ProbeOptions probe_options(const PlatformsArgs& a) {
  ProbeOptions options;
  options.refresh = a.refresh;
  options.timeout_seconds = a.timeout;
  if (::isatty(2)) {
    options.progress = [](size_t done, size_t total, const std::string& spec) {
      std::fprintf(stderr, "\rprobing %zu/%zu %-50s", done, total, spec.c_str());
      if (done == total) std::fprintf(stderr, "\r%80s\r", "");
    };
  }
  return options;
}

nlohmann::json platforms_json(const Catalog& catalog, const std::vector<PlatformStatus>& results) {
  nlohmann::json j;
  j["host"] = host_fingerprint();
  j["presets"] = catalog.presets();
  j["knobs"] = knobs_to_json(catalog.knobs);
  j["platforms"] = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json e{{"spec", r.spec},
                     {"backend", r.backend},
                     {"available", r.available},
                     {"reason", r.reason},
                     {"verdict", verdict_name(r.verdict)},
                     {"probe_seconds", r.seconds},
                     {"library", r.library},
                     {"version", r.version},
                     {"cached", r.cached},
                     {"presets", nlohmann::json::array()}};
    for (const auto& c : catalog.candidates) {
      if (c.spec != r.spec) continue;
      e["presets"] = c.presets;
      e["note"] = c.note;
    }
    j["platforms"].push_back(e);
  }
  return j;
}

void print_platforms(const std::vector<PlatformStatus>& results, const std::string& host) {
  size_t available = 0;
  for (const auto& r : results) available += r.available;
  std::printf("%zu of %zu platforms available on this host (%s)\n", available, results.size(),
              host.c_str());
  for (const auto& r : results) {
    const std::string library = r.library.empty() ? "" : r.library + " " + r.version;
    std::printf("  %-44s %-4s %s\n", r.spec.c_str(), r.available ? "yes" : "no",
                r.available ? library.c_str()
                            : (std::string(verdict_name(r.verdict)) + ": " + r.reason).c_str());
  }
}

Status run_platforms(const PlatformsArgs& a) {
  WorkerPool pool(WorkerPoolOptions{});
  IG_ASSIGN_OR_RETURN(const Catalog catalog, read_catalog(pool.worker_executable()));
  if (a.knobs) {
    if (a.json)
      std::printf("%s\n", knobs_to_json(catalog.knobs).dump(2).c_str());
    else
      print_knobs(catalog.knobs);
    return Status::Ok();
  }
  IG_ASSIGN_OR_RETURN(const std::vector<std::string> specs, specs_to_probe(catalog, a));
  const auto results = probe_platforms(pool, specs, probe_options(a));
  const nlohmann::json j = platforms_json(catalog, results);
  if (a.json)
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  else
    print_platforms(results, j["host"].get<std::string>());
  return Status::Ok();
}

}  // namespace

void add_platforms_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PlatformsArgs>();
  auto* cmd = app.add_subcommand(
      "platforms", "List known platforms and whether each runs on this host (probed, cached)");
  add_platforms_options(cmd, *args);
  cmd->callback([args, &exit_code] {
    if (Status st = run_platforms(*args); !st.ok()) {
      std::fprintf(stderr, "infergap platforms: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli

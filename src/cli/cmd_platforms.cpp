// infergap platforms [--preset NAME]... [-p SPEC]... [--refresh] [--json]
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "worker/probe.h"

namespace ig::cli {

void add_platforms_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::vector<std::string> presets;
    std::vector<std::string> platforms;
    bool refresh = false;
    bool json = false;
    double timeout = 60;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "platforms", "List known platforms and whether each runs on this host (probed, cached)");
  cmd->add_option("--preset", args->presets,
                  "Only this preset's platforms: all (default), a backend name, cpu-sweep, ...");
  cmd->add_option("-p,--platform", args->platforms, "Probe these specs too (repeatable)");
  cmd->add_flag("--refresh", args->refresh, "Probe again instead of using cached results");
  cmd->add_option("--timeout", args->timeout, "Seconds a probe may take")->capture_default_str();
  cmd->add_flag("--json", args->json, "Print results as JSON");
  cmd->callback([args, &exit_code] {
    WorkerPool pool(WorkerPoolOptions{});
    auto catalog = read_catalog(pool.worker_executable());
    if (!catalog.ok()) {
      std::fprintf(stderr, "infergap platforms: %s\n", catalog.status().message().c_str());
      exit_code = kExitBadInput;
      return;
    }
    std::vector<std::string> specs;
    auto add = [&](const std::string& s) {
      if (std::find(specs.begin(), specs.end(), s) == specs.end()) specs.push_back(s);
    };
    if (args->presets.empty() && args->platforms.empty()) args->presets.push_back("all");
    for (const auto& p : args->presets) {
      auto list = preset_specs(*catalog, p);
      if (!list.ok()) {
        std::fprintf(stderr, "infergap platforms: %s\n", list.status().message().c_str());
        exit_code = kExitBadInput;
        return;
      }
      for (const auto& s : *list) add(s);
    }
    for (const auto& s : args->platforms) add(s);

    ProbeOptions options;
    options.refresh = args->refresh;
    options.timeout_seconds = args->timeout;
    if (::isatty(2)) {
      options.progress = [](size_t done, size_t total, const std::string& spec) {
        std::fprintf(stderr, "\rprobing %zu/%zu %-50s", done, total, spec.c_str());
        if (done == total) std::fprintf(stderr, "\r%80s\r", "");
      };
    }
    const auto results = probe_platforms(pool, specs, options);

    nlohmann::json j;
    j["host"] = host_fingerprint();
    j["presets"] = catalog->presets();
    j["platforms"] = nlohmann::json::array();
    size_t available = 0;
    for (const auto& r : results) {
      available += r.available;
      nlohmann::json e{{"spec", r.spec},
                       {"backend", r.backend},
                       {"available", r.available},
                       {"reason", r.reason},
                       {"verdict", verdict_name(r.verdict)},
                       {"probe_seconds", r.seconds},
                       {"cached", r.cached},
                       {"presets", nlohmann::json::array()}};
      for (const auto& c : catalog->candidates) {
        if (c.spec != r.spec) continue;
        e["presets"] = c.presets;
        e["note"] = c.note;
      }
      j["platforms"].push_back(e);
    }
    if (args->json) {
      std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
      return;
    }
    std::printf("%zu of %zu platforms available on this host (%s)\n", available, results.size(),
                j["host"].get<std::string>().c_str());
    for (const auto& r : results) {
      std::printf(
          "  %-44s %-4s %s\n", r.spec.c_str(), r.available ? "yes" : "no",
          r.available ? "" : (std::string(verdict_name(r.verdict)) + ": " + r.reason).c_str());
    }
  });
}

}  // namespace ig::cli

#include "worker/probe.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/cache_dir.h"
#include "worker/knobs_json.h"

namespace ig {

namespace fs = std::filesystem;

Expected<Catalog> read_catalog(const std::string& worker_executable) {
  const std::string cmd = "'" + worker_executable + "' --catalog 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return io_error("cannot run '{}'", worker_executable);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = ::pclose(p);
  // A library may print a banner on stdout before the catalog: the catalog is the last line.
  const size_t start = out.rfind("\n{");
  const std::string text = start == std::string::npos ? out : out.substr(start + 1);
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (rc != 0 || j.is_discarded() || !j.contains("candidates")) {
    return io_error("'{} --catalog' failed (status {}); is the worker built?", worker_executable,
                    rc);
  }
  Catalog c;
  for (const auto& b : j["backends"]) c.backends.emplace_back(b["name"], b["description"]);
  for (const auto& e : j["candidates"]) {
    c.candidates.push_back({e["spec"], e["backend"], e["presets"].get<std::vector<std::string>>(),
                            e["note"], e["hidden"],
                            e.value("ranks", std::map<std::string, int>{})});
  }
  if (!j.contains("knobs"))
    return io_error("'{} --catalog' lists no knob tables: a worker from another infergap build?",
                    worker_executable);
  IG_ASSIGN_OR_RETURN(c.knobs, knobs_from_json(j["knobs"]));
  return c;
}

namespace {

// A rebuilt worker may run platforms the old one could not: cached results belong to one build.
std::string worker_identity(const std::string& exe) {
  struct stat st {};
  if (::stat(exe.c_str(), &st) != 0) return "";
  return fmt::format("{}:{}:{}", exe, st.st_size, st.st_mtim.tv_sec);
}

nlohmann::json load_cache(const fs::path& file, const std::string& identity) {
  std::ifstream in(file);
  if (!in) return nlohmann::json::object();
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || j.value("worker", "") != identity || !j.contains("platforms"))
    return nlohmann::json::object();
  return j["platforms"];
}

void save_cache(const fs::path& file, const std::string& identity, const nlohmann::json& entries) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << nlohmann::json{{"worker", identity}, {"platforms", entries}}.dump(1);
  }
  fs::rename(tmp, file, ec);  // atomic: concurrent probes never see half a file
}

}  // namespace

std::vector<PlatformStatus> probe_platforms(WorkerPool& pool, const std::vector<std::string>& specs,
                                            const ProbeOptions& options) {
  const fs::path dir = options.cache_dir.empty() ? default_cache_dir() : options.cache_dir;
  const fs::path cache_file = dir / ("platforms-" + host_fingerprint() + ".json");
  const std::string identity = worker_identity(pool.worker_executable());
  nlohmann::json cache =
      options.refresh ? nlohmann::json::object() : load_cache(cache_file, identity);
  const fs::path model = dir / ("probe-model-" + std::to_string(::getpid()) + ".onnx");
  std::error_code ec;
  fs::create_directories(dir, ec);
  const Status wrote = write_probe_model(model.string());

  std::vector<PlatformStatus> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (options.progress) options.progress(i, specs.size(), specs[i]);
    PlatformStatus s;
    s.spec = specs[i];
    s.backend = s.spec.substr(0, s.spec.find(':'));
    if (cache.contains(s.spec)) {
      const auto& e = cache[s.spec];
      s.available = e["available"];
      // A cache written by another build may spell verdicts differently: probe again.
      auto v = verdict_from_name(e.value("verdict", std::string()));
      if (!v) {
        cache.erase(s.spec);
      } else {
        s.verdict = *v;
        s.reason = e["reason"];
        s.seconds = e["seconds"];
        s.library = e.value("library", "");
        s.version = e.value("version", "");
        s.cached = true;
        out.push_back(s);
        continue;
      }
    }
    if (!wrote.ok()) {
      s.verdict = Verdict::kError;
      s.reason = wrote.message();
      out.push_back(s);
      continue;
    }
    RunRequest req;
    req.platform = s.spec;
    req.model_path = model.string();
    req.inputs = probe_inputs();
    req.capture.all_layers = false;
    req.timeout_seconds = options.timeout_seconds;
    RunResult r = pool.run(req);
    s.verdict = r.verdict;
    s.available = r.verdict == Verdict::kOk;
    s.reason = s.available ? "" : r.reason;
    s.seconds = r.seconds;
    s.library = r.library;
    s.version = r.library_version;
    // Errors of this build (a missing worker) are not facts about the host: not cached.
    if (r.verdict != Verdict::kError) {
      cache[s.spec] = {{"available", s.available}, {"verdict", verdict_name(s.verdict)},
                       {"reason", s.reason},       {"seconds", s.seconds},
                       {"library", s.library},     {"version", s.version}};
    }
    out.push_back(s);
  }
  if (options.progress) options.progress(specs.size(), specs.size(), "");
  save_cache(cache_file, identity, cache);
  fs::remove(model, ec);
  return out;
}

}  // namespace ig

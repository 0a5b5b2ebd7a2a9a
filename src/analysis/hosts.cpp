#include "analysis/hosts.h"

#include <map>
#include <set>

#include "worker/host_fingerprint.h"

namespace ig {

std::vector<Nondeterminism> nondeterminism(const StudyData& study) {
  std::vector<Nondeterminism> out;
  for (const auto& c : study.cases) {
    for (const auto& p : study.platforms) {
      auto it = c.runs.find(p.label);
      if (it == c.runs.end() || !it->second.nondeterministic()) continue;
      Nondeterminism n{p.label, c.label(), static_cast<int>(it->second.reps.size()), {}};
      for (const auto& [sig, count] : it->second.distribution) n.distribution.push_back(count);
      out.push_back(std::move(n));
    }
  }
  return out;
}

std::vector<FlagCluster> flag_clusters(const StudyData& study) {
  // Flags keyed by the set of hosts that have them; one key, one cluster.
  std::map<std::string, std::set<std::string>> hosts_of_flag;
  for (const auto& h : study.hosts)
    for (const auto& f : fingerprint_cpu_flags(h.fingerprint)) hosts_of_flag[f].insert(h.id);
  std::map<std::set<std::string>, std::vector<std::string>> by_hosts;
  for (const auto& [flag, hosts] : hosts_of_flag)
    if (hosts.size() < study.hosts.size()) by_hosts[hosts].push_back(flag);
  // Each spec's platforms by host, to ask whether a cluster splits their classes.
  std::map<std::string, std::vector<const PlatformInfo*>> by_spec;
  for (const auto& p : study.platforms) by_spec[p.spec].push_back(&p);
  std::vector<FlagCluster> out;
  for (const auto& [hosts, flags] : by_hosts) {
    FlagCluster fc{flags, {hosts.begin(), hosts.end()}, {}};
    for (const auto& c : study.cases) {
      for (const auto& [spec, plats] : by_spec) {
        std::map<std::string, std::set<bool>> sides;  // output signature -> has-cluster values
        std::set<bool> present;
        for (const PlatformInfo* p : plats) {
          auto it = c.runs.find(p->label);
          const RepRun* r = it == c.runs.end() ? nullptr : it->second.run();
          if (!r) continue;
          const bool has = hosts.count(p->host) != 0;
          sides[output_signature(c, *r)].insert(has);
          present.insert(has);
        }
        if (present.size() < 2) continue;
        bool aligned = true;
        for (const auto& [_, s] : sides) aligned = aligned && s.size() == 1;
        if (aligned) fc.aligned.push_back(spec + " on " + c.label());
      }
    }
    out.push_back(std::move(fc));
  }
  return out;
}

namespace {

// An imported device (study/import_run.h) is described by what its helper recorded.
std::string external_description(const nlohmann::json& f) {
  const nlohmann::json& e = f["external"];
  std::string text = "imported";
  auto add = [&](const char* key) {
    if (e.is_object() && e.contains(key) && e[key].is_string() &&
        !e[key].get<std::string>().empty())
      text += " " + e[key].get<std::string>();
  };
  for (const char* key : {"engine", "engine_version", "device", "device_name", "os"}) add(key);
  if (e.is_object() && e.contains("providers")) text += " " + e["providers"].dump();
  return text;
}

}  // namespace

nlohmann::json hosts_json(const StudyData& study) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& h : study.hosts) {
    const auto& f = h.fingerprint;
    if (f.contains("external")) {
      out.push_back({{"id", h.id},
                     {"cpu", external_description(f)},
                     {"microarchitecture", "external"},
                     {"flags", 0},
                     {"cores", 0},
                     {"hostname", ""},
                     {"tag", f.value("tag", f.value("label", std::string()))}});
      continue;
    }
    nlohmann::json cpu = f.contains("cpu") ? f["cpu"] : nlohmann::json::object();
    out.push_back({{"id", h.id},
                   {"cpu", cpu.value("model", std::string())},
                   {"microarchitecture", cpu.value("microarchitecture", std::string())},
                   {"flags", fingerprint_cpu_flags(f).size()},
                   {"cores", f.value("cores", 0)},
                   {"hostname", f.value("hostname", std::string())},
                   {"tag", f.value("tag", std::string())}});
  }
  return out;
}

}  // namespace ig

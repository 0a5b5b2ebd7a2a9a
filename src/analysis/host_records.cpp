#include "analysis/host_records.h"

#include <xxhash.h>

#include <algorithm>
#include <set>

#include "core/dtype.h"
#include "tensor/hash.h"

namespace ig {

namespace {

std::string digest(const std::string& text) {
  return hash_hex(XXH3_64bits(text.data(), text.size()));
}

std::string key_text(const TensorKey& k) {
  return hash_hex(k.hash) + dtype_name(k.dtype) + shape_to_string(k.shape);
}

CaseBits bits_of(const CaseData& c, const RepRun& r) {
  CaseBits b;
  b.outputs = digest(output_signature(c, r));
  std::string all;
  for (const auto& [value, key] : r.values) all += value + "=" + key_text(key) + ";";  // sorted
  b.layers = digest(all);
  b.values = static_cast<int64_t>(r.values.size());
  return b;
}

// All of a platform's case bits as one string: equal strings, identical bits on every case.
std::string signature(const PlatformBits& p) {
  std::string s;
  for (const auto& [label, b] : p.cases) s += label + ":" + b.outputs + "/" + b.layers + ";";
  return s;
}

bool has_flag(const HostCpu& cpu, const std::string& flag) {
  return std::binary_search(cpu.flags.begin(), cpu.flags.end(), flag);
}

// Whether the presence of `flags` separates exactly the classes of `hosts` (class index each).
bool matches(const std::vector<const HostRecord*>& hosts, const std::vector<int>& cls,
             const std::vector<std::string>& flags) {
  auto pattern = [&](size_t h) {
    std::vector<bool> p;
    for (const auto& f : flags) p.push_back(has_flag(hosts[h]->cpu, f));
    return p;
  };
  for (size_t a = 0; a < hosts.size(); ++a)
    for (size_t b = a + 1; b < hosts.size(); ++b)
      if ((cls[a] == cls[b]) != (pattern(a) == pattern(b))) return false;
  return true;
}

// Every set of `k` flags from `candidates` (sorted) that matches, in lexicographic order.
void sets_of_size(const std::vector<std::string>& candidates, size_t k, size_t from,
                  std::vector<std::string>& current, const std::vector<const HostRecord*>& hosts,
                  const std::vector<int>& cls, std::vector<std::vector<std::string>>& out) {
  if (current.size() == k) {
    if (matches(hosts, cls, current)) out.push_back(current);
    return;
  }
  for (size_t i = from; i < candidates.size() && out.size() < 64; ++i) {
    current.push_back(candidates[i]);
    sets_of_size(candidates, k, i + 1, current, hosts, cls, out);
    current.pop_back();
  }
}

std::string library_of(const HostRecord& r, const std::string& spec) {
  const auto it = r.software.find("platform_libraries");
  if (it == r.software.end() || !it->is_object()) return "";
  const auto lib = it->find(spec);
  return lib != it->end() && lib->is_string() ? lib->get<std::string>() : "";
}

// The platform's library on each class's hosts ("OpenBLAS 0.3.26"), when the hosts run more than
// one; true when the classes follow the versions exactly (one known version per class, each its
// own): the split is then the libraries', and the CPUs cannot be compared on it.
bool versions_explain(PlatformClasses& pc, const std::vector<const HostRecord*>& hosts,
                      const std::vector<int>& cls) {
  std::vector<std::set<std::string>> versions(pc.classes.size());
  std::set<std::string> every;
  for (size_t h = 0; h < hosts.size(); ++h) {
    const std::string v = library_of(*hosts[h], pc.spec);
    versions[cls[h]].insert(v);
    every.insert(v);
  }
  if (every.size() < 2) return false;
  bool follows = every.size() == pc.classes.size() && !every.count("");
  for (const auto& v : versions) {
    std::string text;
    for (const auto& one : v) text += (text.empty() ? "" : ", ") + (one.empty() ? "?" : one);
    pc.library_versions.push_back(text);
    follows = follows && v.size() == 1;
  }
  return follows;
}

PlatformClasses classes_of(const std::string& spec, const std::vector<HostRecord>& records) {
  PlatformClasses pc;
  pc.spec = spec;
  std::vector<const HostRecord*> hosts;
  std::vector<std::string> sigs;
  for (const auto& r : records) {
    auto it = std::find_if(r.platforms.begin(), r.platforms.end(),
                           [&](const PlatformBits& p) { return p.spec == spec; });
    if (it == r.platforms.end() || it->verdict != "ok" || it->cases.empty()) {
      pc.hosts_without.push_back(r.id);
      continue;
    }
    hosts.push_back(&r);
    sigs.push_back(signature(*it));
  }
  std::vector<std::string> distinct;
  std::vector<int> cls;
  for (const auto& s : sigs) {
    auto it = std::find(distinct.begin(), distinct.end(), s);
    if (it == distinct.end()) {
      cls.push_back(static_cast<int>(distinct.size()));
      distinct.push_back(s);
    } else {
      cls.push_back(static_cast<int>(it - distinct.begin()));
    }
  }
  pc.classes.resize(distinct.size());
  for (size_t h = 0; h < hosts.size(); ++h) pc.classes[cls[h]].push_back(hosts[h]->id);
  if (pc.classes.size() < 2) {
    pc.confidence = "none";
    return pc;
  }
  if (versions_explain(pc, hosts, cls)) {
    pc.confidence = "library";
    return pc;
  }
  // Flags some of these hosts have and others lack: the only ones that can separate them.
  std::set<std::string> some, all;
  for (size_t h = 0; h < hosts.size(); ++h) {
    const auto& f = hosts[h]->cpu.flags;
    some.insert(f.begin(), f.end());
    std::set<std::string> mine(f.begin(), f.end());
    if (h == 0) {
      all = mine;
    } else {
      std::set<std::string> both;
      std::set_intersection(all.begin(), all.end(), mine.begin(), mine.end(),
                            std::inserter(both, both.begin()));
      all = std::move(both);
    }
  }
  std::vector<std::string> candidates;
  for (const auto& f : some)
    if (!all.count(f)) candidates.push_back(f);
  std::vector<std::vector<std::string>> found;
  for (size_t k = 1; k <= 3 && found.empty(); ++k) {
    std::vector<std::string> current;
    sets_of_size(candidates, k, 0, current, hosts, cls, found);
  }
  size_t smallest = hosts.size();
  for (const auto& c : pc.classes) smallest = std::min(smallest, c.size());
  if (found.empty()) {
    pc.confidence = "unexplained";
    return pc;
  }
  pc.split_by = found.front();
  pc.alternatives.assign(found.begin() + 1, found.end());
  pc.confidence = !pc.alternatives.empty() || smallest < 2 ? "low"
                  : smallest >= 3                          ? "high"
                                                           : "medium";
  return pc;
}

}  // namespace

std::string host_record_id(const HostCpu& cpu) {
  std::string text = cpu.vendor + "|" + std::to_string(cpu.family) + "|" +
                     std::to_string(cpu.model) + "|" + std::to_string(cpu.stepping) + "|";
  for (const auto& f : cpu.flags) text += f + ",";
  return digest(text);
}

HostRecord host_record_of(const StudyData& study, const HostCpu& cpu, nlohmann::json software,
                          const std::string& scratch) {
  auto label_of = [&](const CaseData& c) {
    std::string label = c.label();
    for (size_t at; !scratch.empty() && (at = label.find(scratch)) != std::string::npos;)
      label.erase(at, scratch.size());
    return label;
  };
  HostRecord r;
  r.cpu = cpu;
  r.id = host_record_id(cpu);
  r.software = std::move(software);
  for (const auto& p : study.platforms) {
    PlatformBits pb;
    pb.spec = p.spec;
    pb.verdict = "ok";
    for (const auto& c : study.cases) {
      auto it = c.runs.find(p.label);
      if (it == c.runs.end() || it->second.reps.empty()) continue;
      const RepRun& first = it->second.reps.front();
      if (const RepRun* run = it->second.run()) {
        pb.cases[label_of(c)] = bits_of(c, *run);
      } else if (pb.verdict == "ok") {
        pb.verdict = std::string(verdict_name(first.verdict)) + ": " + first.reason;
      }
    }
    r.platforms.push_back(std::move(pb));
  }
  std::sort(r.platforms.begin(), r.platforms.end(),
            [](const PlatformBits& a, const PlatformBits& b) { return a.spec < b.spec; });
  return r;
}

nlohmann::json host_record_json(const HostRecord& r) {
  nlohmann::json platforms = nlohmann::json::array();
  for (const auto& p : r.platforms) {
    nlohmann::json cases = nlohmann::json::object();
    for (const auto& [label, b] : p.cases)
      cases[label] = {{"outputs", b.outputs}, {"layers", b.layers}, {"values", b.values}};
    platforms.push_back({{"spec", p.spec}, {"verdict", p.verdict}, {"cases", cases}});
  }
  return {{"format", kHostRecordFormat},
          {"host",
           {{"id", r.id},
            {"vendor", r.cpu.vendor},
            {"cpu", r.cpu.name},
            {"microarchitecture", r.cpu.microarchitecture},
            {"family", r.cpu.family},
            {"model", r.cpu.model},
            {"stepping", r.cpu.stepping},
            {"cores", r.cpu.cores},
            {"flags", r.cpu.flags}}},
          {"software", r.software},
          {"platforms", platforms}};
}

Expected<HostRecord> host_record_from_json(const nlohmann::json& j, const std::string& file) {
  HostRecord r;
  try {
    if (j.value("format", "") != kHostRecordFormat)
      return invalid_argument("{}: not a host record (format '{}', expected '{}')", file,
                              j.value("format", ""), kHostRecordFormat);
    const auto& h = j.at("host");
    r.id = h.at("id");
    r.cpu.vendor = h.at("vendor");
    r.cpu.name = h.at("cpu");
    r.cpu.microarchitecture = h.at("microarchitecture");
    r.cpu.family = h.at("family");
    r.cpu.model = h.at("model");
    r.cpu.stepping = h.at("stepping");
    r.cpu.cores = h.at("cores");
    r.cpu.flags = h.at("flags").get<std::vector<std::string>>();
    r.software = j.value("software", nlohmann::json::object());
    for (const auto& p : j.at("platforms")) {
      PlatformBits pb{p.at("spec"), p.at("verdict"), {}};
      for (const auto& [label, b] : p.at("cases").items())
        pb.cases[label] = {b.at("outputs"), b.at("layers"), b.at("values")};
      r.platforms.push_back(std::move(pb));
    }
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument("{}: malformed host record: {}", file, e.what());
  }
  if (!std::is_sorted(r.cpu.flags.begin(), r.cpu.flags.end()))
    return invalid_argument("{}: the host's flags are not sorted", file);
  if (host_record_id(r.cpu) != r.id)
    return invalid_argument("{}: host id {} does not match its CPU (expected {})", file, r.id,
                            host_record_id(r.cpu));
  return r;
}

namespace {
// The library and version a record names for a platform ("" when it names none).
bool library_changed(const HostRecord& a, const HostRecord& b, const std::string& spec) {
  const std::string la = library_of(a, spec), lb = library_of(b, spec);
  return !la.empty() && !lb.empty() && la != lb;
}
}  // namespace

std::vector<std::string> differing_platforms(const HostRecord& a, const HostRecord& b) {
  std::vector<std::string> out;
  for (const auto& pa : a.platforms) {
    for (const auto& pb : b.platforms) {
      if (pa.spec != pb.spec || library_changed(a, b, pa.spec)) continue;
      if (pa.cases != pb.cases || pa.verdict != pb.verdict) out.push_back(pa.spec);
    }
  }
  return out;
}

std::vector<std::string> library_changes(const HostRecord& a, const HostRecord& b) {
  std::vector<std::string> out;
  for (const auto& pa : a.platforms) {
    for (const auto& pb : b.platforms) {
      if (pa.spec == pb.spec && library_changed(a, b, pa.spec)) out.push_back(pa.spec);
    }
  }
  return out;
}

HostsComparison compare_host_records(std::vector<HostRecord> hosts) {
  HostsComparison c;
  std::sort(hosts.begin(), hosts.end(),
            [](const HostRecord& a, const HostRecord& b) { return a.id < b.id; });
  c.hosts = std::move(hosts);
  std::set<std::string> specs;
  for (const auto& h : c.hosts)
    for (const auto& p : h.platforms) specs.insert(p.spec);
  for (const auto& s : specs) c.platforms.push_back(classes_of(s, c.hosts));
  return c;
}

nlohmann::json hosts_comparison_json(const HostsComparison& c) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& h : c.hosts)
    hosts.push_back({{"id", h.id},
                     {"cpu", h.cpu.name},
                     {"vendor", h.cpu.vendor},
                     {"microarchitecture", h.cpu.microarchitecture},
                     {"flags", h.cpu.flags}});
  nlohmann::json platforms = nlohmann::json::array();
  for (const auto& p : c.platforms)
    platforms.push_back({{"spec", p.spec},
                         {"classes", p.classes.size()},
                         {"hosts_by_class", p.classes},
                         {"hosts_without", p.hosts_without},
                         {"split_by", p.split_by},
                         {"alternatives", p.alternatives},
                         {"library_versions", p.library_versions},
                         {"confidence", p.confidence}});
  return {{"hosts", hosts}, {"platforms", platforms}};
}

}  // namespace ig

// Host records (`infergap hosts record`, experiments/hosts/): one small JSON per kind of machine
// with who the machine is (CPU vendor, family, model, stepping, microarchitecture, the flags that
// steer dispatch, cores) and the bits each platform computed on a fixed host study. `hosts
// compare` reads a folder of them: per platform spec, how many classes its bits form across the
// hosts, which hosts share each, and the CPU flags whose presence separates the classes (the
// numerical-deviations paper's CPU-flag clustering, from real hosts).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/study_data.h"
#include "worker/host_cpu.h"

namespace ig {

inline constexpr const char* kHostRecordFormat = "infergap-host-record/1";

// A platform's bits on one case: a digest of its graph outputs and one of every traced value.
struct CaseBits {
  std::string outputs, layers;
  int64_t values = 0;  // traced values in `layers`
  bool operator==(const CaseBits&) const = default;
};

struct PlatformBits {
  std::string spec;
  std::string verdict;  // "ok", or the first failure: "unsupported: ...", "crash: ..."
  std::map<std::string, CaseBits> cases;  // by case label (ok runs only)
};

struct HostRecord {
  std::string id;  // of the CPU (host_record_id): one record per kind of machine
  HostCpu cpu;
  nlohmann::json software;  // compiler and library versions, as far as known
  std::vector<PlatformBits> platforms;
};

// The id of a CPU: a hash of its vendor, family, model, stepping and dispatch flags.
std::string host_record_id(const HostCpu& cpu);

// The record of `study` (the host study, one host) on `cpu`; `scratch` (the folder the study ran
// in) is cut from the case labels, so that records made anywhere name the same cases.
HostRecord host_record_of(const StudyData& study, const HostCpu& cpu, nlohmann::json software,
                          const std::string& scratch);

nlohmann::json host_record_json(const HostRecord& r);
// `file` names the record in errors.
Expected<HostRecord> host_record_from_json(const nlohmann::json& j, const std::string& file);

// The platforms of both records whose bits differ between them (a case one lacks counts), among
// those that ran the same library and version in both: the others are in library_changes.
std::vector<std::string> differing_platforms(const HostRecord& a, const HostRecord& b);
// The platforms of both records whose library or version differs ("OpenBLAS 0.3.21" against
// "OpenBLAS 0.3.26"): their bits are not comparable as the same host's.
std::vector<std::string> library_changes(const HostRecord& a, const HostRecord& b);

struct PlatformClasses {
  std::string spec;
  std::vector<std::vector<std::string>> classes;  // host ids per class of identical bits
  std::vector<std::string> hosts_without;         // hosts where it did not run (or failed)
  // The smallest set of CPU flags whose presence pattern matches the classes (hosts with the same
  // bits have the same flags of the set, hosts with other bits other flags); empty with one class
  // or when no set of up to three flags matches.
  std::vector<std::string> split_by;
  // Other sets of that size that match as well: with few hosts, many flags fit one split.
  std::vector<std::vector<std::string>> alternatives;
  // Per class, the platform's library version(s) on its hosts, when the hosts run more than one
  // (host records' software.platform_libraries); empty when they all run the same.
  std::vector<std::string> library_versions;
  // "none" (one class), "library" (the classes follow the library versions exactly: no flag
  // search), "unexplained" (no flag set matches), "low" (several sets fit, or fewer than two hosts
  // per class), "medium", "high" (one set fits, at least three hosts per class).
  std::string confidence;
};

struct HostsComparison {
  std::vector<HostRecord> hosts;
  std::vector<PlatformClasses> platforms;  // specs in name order
};

HostsComparison compare_host_records(std::vector<HostRecord> hosts);

nlohmann::json hosts_comparison_json(const HostsComparison& c);

}  // namespace ig

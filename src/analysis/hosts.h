// Determinism across repetitions, and CPU-flag clusters over the hosts of a (merged) store: flags
// that always co-occur, and which clusters separate the hosts' equivalence classes (the paper's
// Table 1).
#pragma once

#include <string>
#include <vector>

#include "analysis/study_data.h"

namespace ig {

struct Nondeterminism {
  std::string platform, case_label;
  int repetitions = 0;
  std::vector<int> distribution;  // repetitions per distinct output, majority first
};

std::vector<Nondeterminism> nondeterminism(const StudyData& study);

struct FlagCluster {
  std::vector<std::string> flags;
  std::vector<std::string> hosts;  // hosts that have every flag of the cluster
  // "spec on case" where the hosts' EQCs separate exactly the hosts with the cluster from those
  // without it.
  std::vector<std::string> aligned;
};

// One JSON object per host: id, cpu, microarchitecture, flag count, cores, hostname, tag.
nlohmann::json hosts_json(const StudyData& study);

// Clusters of flags present on some but not all hosts.
std::vector<FlagCluster> flag_clusters(const StudyData& study);

}  // namespace ig

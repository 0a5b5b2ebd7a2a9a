// Host fingerprint: what of the machine can change a platform's bits (CPU model and flags, cores,
// memory, OS, compiler, library versions, GPU). Two platforms are the same only if spec and
// fingerprint match (DESIGN.md "Words").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ig {

struct HostFingerprint {
  nlohmann::json json;  // canonical: keys sorted by nlohmann::json
  std::string id;       // XXH3-64 hex of json.dump()
};

// Probes this machine. `tag` (may be empty) is added to tell apart hosts whose hardware and
// software are identical, e.g. nodes of one cluster.
HostFingerprint probe_host(const std::string& tag = "");

// The id of an arbitrary fingerprint JSON (for hosts recorded elsewhere).
std::string fingerprint_id(const nlohmann::json& fingerprint);

// CPU flags recorded in a fingerprint, sorted.
std::vector<std::string> fingerprint_cpu_flags(const nlohmann::json& fingerprint);

}  // namespace ig

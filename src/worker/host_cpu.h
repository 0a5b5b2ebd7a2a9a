// The CPU as a host record names it (analysis/host_records.h): what tells one kind of machine
// from another for the libraries' dispatch. /proc/cpuinfo is read, not cpu_features: the kernel
// knows the newest parts and flags (amx_*, avx512_fp16) that an older cpu_features lacks.
#pragma once

#include <string>
#include <vector>

namespace ig {

struct HostCpu {
  std::string vendor, name, microarchitecture;
  int family = 0, model = 0, stepping = 0, cores = 0;
  std::vector<std::string> flags;  // those that steer dispatch (dispatch_flag), sorted
};

// This machine's CPU.
HostCpu probe_host_cpu();

// The same from the text of /proc/cpuinfo and the online core count.
HostCpu host_cpu_from_cpuinfo(const std::string& cpuinfo, int cores);

// The microarchitecture of an x86 CPU from its vendor, family and model ("zen4",
// "sapphirerapids"), or "" for one not in the table.
std::string x86_microarchitecture(const std::string& vendor, int family, int model);

// Whether a /proc/cpuinfo flag is an instruction-set extension a library may dispatch on (SSE to
// AVX-512 and AMX, FMA, F16C, VNNI, BF16, ...) rather than a platform or power-management detail.
bool dispatch_flag(const std::string& flag);

}  // namespace ig

#include "worker/host_cpu.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ig {

namespace {

// The first "key : value" line of /proc/cpuinfo for `key`.
std::string field(const std::string& info, const std::string& key) {
  std::istringstream in(info);
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k != key) continue;
    std::string v = line.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    return v;
  }
  return "";
}

int number(const std::string& text) {
  try {
    return std::stoi(text);
  } catch (const std::exception&) {
    return 0;
  }
}

struct Part {
  const char* vendor;
  int family, model_lo, model_hi;
  const char* name;
};

// Families and model ranges from the vendors' published CPUID tables (AMD's Processor
// Programming References, Intel's SDM volume 4 model list); ranges not listed stay unnamed.
constexpr Part kParts[] = {
    {"AuthenticAMD", 23, 0x00, 0x2f, "zen"},
    {"AuthenticAMD", 23, 0x30, 0xff, "zen2"},
    {"AuthenticAMD", 25, 0x00, 0x0f, "zen3"},
    {"AuthenticAMD", 25, 0x10, 0x1f, "zen4"},
    {"AuthenticAMD", 25, 0x20, 0x5f, "zen3"},
    {"AuthenticAMD", 25, 0x60, 0xaf, "zen4"},
    {"AuthenticAMD", 26, 0x00, 0xff, "zen5"},
    {"GenuineIntel", 6, 0x55, 0x55, "skylake-x"},
    {"GenuineIntel", 6, 0x6a, 0x6a, "icelake-server"},
    {"GenuineIntel", 6, 0x6c, 0x6c, "icelake-server"},
    {"GenuineIntel", 6, 0x8f, 0x8f, "sapphirerapids"},
    {"GenuineIntel", 6, 0xcf, 0xcf, "emeraldrapids"},
    {"GenuineIntel", 6, 0xad, 0xad, "graniterapids"},
    {"GenuineIntel", 6, 0xae, 0xae, "graniterapids"},
    {"GenuineIntel", 6, 0x9e, 0x9e, "kabylake"},
    {"GenuineIntel", 6, 0x3f, 0x3f, "haswell"},
    {"GenuineIntel", 6, 0x4f, 0x4f, "broadwell"},
    {"GenuineIntel", 6, 0x97, 0x97, "alderlake"},
    {"GenuineIntel", 6, 0xb7, 0xb7, "raptorlake"},
};

}  // namespace

std::string x86_microarchitecture(const std::string& vendor, int family, int model) {
  for (const auto& p : kParts)
    if (vendor == p.vendor && family == p.family && model >= p.model_lo && model <= p.model_hi)
      return p.name;
  return "";
}

bool dispatch_flag(const std::string& f) {
  static const char* const kPrefixes[] = {
      "sse", "ssse3", "avx",        "amx",  "fma",   "f16c",   "bmi",    "popcnt", "aes",
      "sha", "vaes",  "vpclmulqdq", "gfni", "movbe", "adx",    "abm",    "lzcnt",  "xop",
      "tbm", "mmx",   "pclmulqdq",  "erms", "fsrm",  "rdrand", "rdseed", "cx16"};
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](const char* p) { return f.rfind(p, 0) == 0; });
}

HostCpu host_cpu_from_cpuinfo(const std::string& info, int cores) {
  HostCpu cpu;
  cpu.vendor = field(info, "vendor_id");
  cpu.name = field(info, "model name");
  cpu.family = number(field(info, "cpu family"));
  cpu.model = number(field(info, "model"));
  cpu.stepping = number(field(info, "stepping"));
  cpu.cores = cores;
  cpu.microarchitecture = x86_microarchitecture(cpu.vendor, cpu.family, cpu.model);
  std::istringstream flags(field(info, "flags"));
  for (std::string f; flags >> f;)
    if (dispatch_flag(f)) cpu.flags.push_back(f);
  std::sort(cpu.flags.begin(), cpu.flags.end());
  cpu.flags.erase(std::unique(cpu.flags.begin(), cpu.flags.end()), cpu.flags.end());
  return cpu;
}

HostCpu probe_host_cpu() {
  std::ifstream f("/proc/cpuinfo");
  std::stringstream ss;
  ss << f.rdbuf();
  return host_cpu_from_cpuinfo(ss.str(), static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
}

}  // namespace ig

#include "worker/host_fingerprint.h"

#include <google/protobuf/stubs/common.h>
#include <sqlite3.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#ifdef INFERGAP_HAVE_CPU_FEATURES
#include <cpu_features/cpuinfo_x86.h>
#endif

#include "tensor/hash.h"

namespace ig {

namespace {

// First "key : value" line of /proc/cpuinfo with this key.
std::string cpuinfo_field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k != key) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

nlohmann::json probe_cpu() {
  nlohmann::json cpu;
  const std::string info = read_file("/proc/cpuinfo");
  std::vector<std::string> flags;
#if defined(INFERGAP_HAVE_CPU_FEATURES) && defined(__x86_64__)
  const cpu_features::X86Info x = cpu_features::GetX86Info();
  cpu["source"] = "cpu_features";
  cpu["vendor"] = x.vendor;
  cpu["model"] = x.brand_string;
  cpu["family"] = x.family;
  cpu["model_number"] = x.model;
  cpu["stepping"] = x.stepping;
  cpu["microarchitecture"] =
      cpu_features::GetX86MicroarchitectureName(cpu_features::GetX86Microarchitecture(&x));
  for (int f = 0; f < cpu_features::X86_LAST_; ++f) {
    const auto e = static_cast<cpu_features::X86FeaturesEnum>(f);
    if (cpu_features::GetX86FeaturesEnumValue(&x.features, e))
      flags.emplace_back(cpu_features::GetX86FeaturesEnumName(e));
  }
#else
  cpu["source"] = "/proc/cpuinfo";
  cpu["vendor"] = cpuinfo_field(info, "vendor_id");
  cpu["model"] = cpuinfo_field(info, "model name");
  cpu["family"] = cpuinfo_field(info, "cpu family");
  cpu["model_number"] = cpuinfo_field(info, "model");
  cpu["stepping"] = cpuinfo_field(info, "stepping");
  cpu["microarchitecture"] = "unknown";
  std::istringstream fl(cpuinfo_field(info, "flags"));
  for (std::string f; fl >> f;) flags.push_back(f);
#endif
  // The kernel's name for the model is kept too: cpu_features does not know the newest parts.
  cpu["cpuinfo_model_name"] = cpuinfo_field(info, "model name");
  std::sort(flags.begin(), flags.end());
  cpu["flags"] = flags;
  return cpu;
}

std::string probe_gpu() {
  // The NVIDIA driver lists its GPUs here; no driver library is loaded by the coordinator.
  std::error_code ec;
  const std::filesystem::path dir = "/proc/driver/nvidia/gpus";
  std::string gpus;
  if (!std::filesystem::is_directory(dir, ec)) return gpus;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string model =
        cpuinfo_field(read_file((e.path() / "information").string()), "Model");
    if (!model.empty()) gpus += (gpus.empty() ? "" : ", ") + model;
  }
  return gpus;
}

}  // namespace

std::string fingerprint_id(const nlohmann::json& fingerprint) {
  const std::string text = fingerprint.dump();
  return hash_hex(XXH3_64bits(text.data(), text.size()));
}

HostFingerprint probe_host(const std::string& tag) {
  nlohmann::json j;
  j["cpu"] = probe_cpu();
  j["cores"] = static_cast<int64_t>(sysconf(_SC_NPROCESSORS_ONLN));
  j["memory_bytes"] =
      static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
  utsname u{};
  if (uname(&u) == 0) {
    j["os"] = {{"name", u.sysname}, {"release", u.release}, {"machine", u.machine}};
    j["hostname"] = u.nodename;
  }
  j["compiler"] = __VERSION__;
  j["libraries"] = {
      {"sqlite", sqlite3_libversion()},
      {"zstd", ZSTD_versionString()},
      {"protobuf", google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION)}};
  j["gpu"] = probe_gpu();
  if (!tag.empty()) j["tag"] = tag;
  return {j, fingerprint_id(j)};
}

std::vector<std::string> fingerprint_cpu_flags(const nlohmann::json& fingerprint) {
  std::vector<std::string> flags;
  if (fingerprint.contains("cpu") && fingerprint["cpu"].contains("flags") &&
      fingerprint["cpu"]["flags"].is_array()) {
    for (const auto& f : fingerprint["cpu"]["flags"])
      if (f.is_string()) flags.push_back(f.get<std::string>());
  }
  std::sort(flags.begin(), flags.end());
  return flags;
}

}  // namespace ig

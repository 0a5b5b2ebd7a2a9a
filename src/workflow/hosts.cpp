#include "workflow/hosts.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

#include "store/store.h"
#include "worker/host_fingerprint.h"
#include "workflow/work_folder.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

// What is known of the software that computed the bits: the compiler, the libraries the
// coordinator links, and the library each platform ran with its version, as the library said
// (XNNPACK says none).
Expected<nlohmann::json> software_of_this_host(const Store& store) {
  const nlohmann::json f = probe_host().json;
  nlohmann::json platforms = nlohmann::json::object();
  IG_ASSIGN_OR_RETURN(const auto libraries, store.platform_libraries());
  for (const auto& l : libraries) platforms[l.spec] = l.library + " " + l.version;
  return nlohmann::json{{"compiler", f.value("compiler", "")},
                        {"libraries", f.value("libraries", nlohmann::json::object())},
                        {"platform_libraries", platforms},
                        {"os", f.value("os", nlohmann::json::object())}};
}

Status write_json(const std::string& path, const nlohmann::json& j) {
  const std::string tmp = path + ".part";
  {
    std::ofstream out(tmp);
    out << j.dump(2) << "\n";
    if (!out) return io_error("{}: cannot write", tmp);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);  // whole or not at all
  if (ec) return io_error("{}: cannot write: {}", path, ec.message());
  return Status::Ok();
}

std::string slug(std::string s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace

std::string host_record_file_name(const HostRecord& r) {
  const std::string vendor = r.cpu.vendor == "AuthenticAMD"   ? "amd"
                             : r.cpu.vendor == "GenuineIntel" ? "intel"
                                                              : slug(r.cpu.vendor);
  const std::string arch = !r.cpu.microarchitecture.empty() ? r.cpu.microarchitecture
                                                            : "f" + std::to_string(r.cpu.family) +
                                                                  "m" + std::to_string(r.cpu.model);
  return vendor + "-" + arch + "-" + r.id.substr(0, 8) + ".json";
}

Expected<std::vector<HostRecord>> read_host_records(const std::string& dir,
                                                    std::vector<std::string>* files_out) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return not_found("{}: no such folder of host records", dir);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<HostRecord> out;
  std::map<std::string, std::string> file_of;
  for (const auto& f : files) {
    std::ifstream in(f);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) return invalid_argument("{}: not JSON", f);
    IG_ASSIGN_OR_RETURN(HostRecord r, host_record_from_json(j, f));
    if (auto [it, fresh] = file_of.emplace(r.id, f); !fresh)
      return invalid_argument("{} and {} record the same host ({}): keep one", it->second, f, r.id);
    out.push_back(std::move(r));
    if (files_out) files_out->push_back(f);
  }
  return out;
}

Expected<HostRecordOutcome> record_host(const HostRecordRequest& request, const StudyHooks& hooks) {
  std::error_code ec;
  fs::create_directories(request.dir, ec);
  if (ec) return io_error("{}: cannot make the folder: {}", request.dir, ec.message());
  std::vector<std::string> earlier_files;
  IG_ASSIGN_OR_RETURN(const std::vector<HostRecord> earlier,
                      read_host_records(request.dir, &earlier_files));
  const WorkFolder scratch("host");
  StudyPlan plan;
  plan.options.platforms = request.platforms;
  plan.options.oracle = default_oracle();
  plan.options.all_layers = true;
  plan.store_path = scratch.file("host-study.db");
  plan.presets = request.presets;
  plan.self_check = false;
  plan.report = false;
  IG_ASSIGN_OR_RETURN(const auto store, Store::open(plan.store_path));
  IG_ASSIGN_OR_RETURN(StudyOutcome study, run_study_steps(*store, plan, hooks));
  IG_ASSIGN_OR_RETURN(const StudyData data, load_study(*store));
  HostRecordOutcome out;
  out.summary = std::move(study.summary);
  IG_ASSIGN_OR_RETURN(nlohmann::json software, software_of_this_host(*store));
  out.record = host_record_of(data, probe_host_cpu(), std::move(software), scratch.path() + "/");
  out.file = (fs::path(request.dir) / host_record_file_name(out.record)).string();
  auto same = std::find_if(earlier.begin(), earlier.end(),
                           [&](const HostRecord& r) { return r.id == out.record.id; });
  out.status = "new";
  if (same != earlier.end()) {
    out.differing = differing_platforms(*same, out.record);
    out.library_changed = library_changes(*same, out.record);
    out.status = !out.differing.empty()        ? "nondeterministic"
                 : out.library_changed.empty() ? "identical"
                                               : "updated";
    // The earlier record keeps its file name, wherever it came from.
    out.file = earlier_files[static_cast<size_t>(same - earlier.begin())];
  }
  if (out.status != "nondeterministic") {
    IG_RETURN_IF_ERROR(write_json(out.file, host_record_json(out.record)));
  }
  return out;
}

}  // namespace ig

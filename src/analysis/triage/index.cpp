#include "analysis/triage/index.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace ig::triage {

namespace fs = std::filesystem;

Expected<nlohmann::json> read_index(const std::string& dir) {
  const fs::path path = fs::path(dir) / kIndexFile;
  if (!fs::exists(path)) return nlohmann::json{{"findings", nlohmann::json::array()}};
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.contains("findings") || !j["findings"].is_array())
    return invalid_argument("{}: not a findings index (expected {{\"findings\": [...]}})",
                            path.string());
  return j;
}

Status write_index(const std::string& dir, const nlohmann::json& index) {
  const fs::path path = fs::path(dir) / kIndexFile;
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << index.dump(2) << "\n";
    if (!out) return io_error("{}: cannot write", tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);  // a reader never sees half an index
  if (ec) return io_error("{}: {}", path.string(), ec.message());
  return Status::Ok();
}

nlohmann::json* find_entry(nlohmann::json& index, const std::string& signature) {
  for (auto& e : index["findings"])
    if (e.value("signature", std::string()) == signature) return &e;
  return nullptr;
}

std::string next_id(const nlohmann::json& index) {
  int highest = 0;
  for (const auto& e : index["findings"]) {
    const std::string id = e.value("id", std::string());
    if (id.size() > 1 && id[0] == 'F') highest = std::max(highest, std::atoi(id.c_str() + 1));
  }
  return fmt::format("F{:03d}", highest + 1);
}

namespace {

nlohmann::json hit_json(const Hit& h) {
  return {{"model", h.model},
          {"model_path", h.model_path},
          {"architecture", h.architecture},
          {"input", h.input},
          {"platform", h.platform},
          {"against", h.against},
          {"witness", h.witness},
          {"run", h.run},
          {"nodes", h.nodes},
          {"node", h.node},
          {"detail", h.detail}};
}

// Sorted union of a JSON string array and a set.
nlohmann::json united(const nlohmann::json& old, const std::set<std::string>& now) {
  std::set<std::string> all = now;
  if (old.is_array())
    for (const auto& v : old) all.insert(v.get<std::string>());
  return all;
}

// A folder name of the id and the signature's words: "F003-ort-wrong-result-Conv".
std::string folder_of(const std::string& id, const Finding& f) {
  std::string s = id + "-" + f.family + "-" + f.kind + "-" + f.op.substr(0, f.op.find(" / "));
  std::string out;
  for (char c : s.substr(0, 80))
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '-';
  return out;
}

}  // namespace

nlohmann::json new_entry(const Finding& f, const std::string& id) {
  nlohmann::json e{{"id", id},
                   {"folder", folder_of(id, f)},
                   {"signature", f.signature},
                   {"family", f.family},
                   {"kind", f.kind},
                   {"op", f.op},
                   {"representative", hit_json(f.representative())},
                   {"triage_runs", 0},
                   {"hits", 0}};
  count_again(e, f);
  return e;
}

void count_again(nlohmann::json& entry, const Finding& f) {
  entry["platforms"] = united(entry.value("platforms", nlohmann::json()), f.platforms());
  entry["variants"] = united(entry.value("variants", nlohmann::json()), f.variants());
  entry["architectures"] =
      united(entry.value("architectures", nlohmann::json()), f.architectures());
  entry["variant_count"] = entry["variants"].size();
  entry["architecture_count"] = entry["architectures"].size();
  entry["hits"] = std::max<size_t>(entry.value("hits", size_t{0}), f.hits.size());
  entry["triage_runs"] = entry.value("triage_runs", 0) + 1;
}

}  // namespace ig::triage

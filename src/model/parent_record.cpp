#include "model/parent_record.h"

#include <xxhash.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "model/onnx_model.h"
#include "tensor/hash.h"

namespace ig {

namespace fs = std::filesystem;

Expected<std::string> model_file_hash(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return not_found("{}: no such model file", path);
  std::ifstream f(path, std::ios::binary);
  if (!f) return io_error("{}: cannot read", path);
  std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(),
                                                                 &XXH3_freeState);
  if (!state || XXH3_64bits_reset(state.get()) != XXH_OK)
    return internal_error("{}: cannot start a hash", path);
  std::vector<char> chunk(size_t{1} << 20);
  while (f) {
    f.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    XXH3_64bits_update(state.get(), chunk.data(), static_cast<size_t>(f.gcount()));
  }
  if (!f.eof()) return io_error("{}: read failed", path);
  return hash_hex(XXH3_64bits_digest(state.get()));
}

void stamp_parent(onnx::ModelProto& model, const ParentRecord& parent) {
  const std::string value = nlohmann::json{{"hash", parent.hash}, {"file", parent.file}}.dump();
  for (auto& p : *model.mutable_metadata_props()) {
    if (p.key() == kParentKey) {
      p.set_value(value);
      return;
    }
  }
  auto* p = model.add_metadata_props();
  p->set_key(kParentKey);
  p->set_value(value);
}

Status stamp_parent_file(onnx::ModelProto& model, const std::string& parent_path,
                         const std::string& out_path) {
  IG_ASSIGN_OR_RETURN(std::string hash, model_file_hash(parent_path));
  const fs::path out_dir = fs::absolute(out_path).lexically_normal().parent_path();
  const fs::path parent = fs::absolute(parent_path).lexically_normal();
  stamp_parent(model, {hash, parent.lexically_relative(out_dir).generic_string()});
  return Status::Ok();
}

std::optional<ParentRecord> parent_record(const std::map<std::string, std::string>& metadata) {
  auto it = metadata.find(kParentKey);
  if (it == metadata.end()) return std::nullopt;
  const auto j = nlohmann::json::parse(it->second, nullptr, false);
  if (!j.is_object() || !j.contains("hash") || !j["hash"].is_string() || !j.contains("file") ||
      !j["file"].is_string())
    return std::nullopt;
  return ParentRecord{j["hash"].get<std::string>(), j["file"].get<std::string>()};
}

std::optional<ParentRecord> parent_record(const onnx::ModelProto& model) {
  std::map<std::string, std::string> metadata;
  for (const auto& p : model.metadata_props()) metadata[p.key()] = p.value();
  return parent_record(metadata);
}

namespace {

// The places the record allows, in order, without repeats: the file name beside the model, then
// the relative path when it does not leave the model's folder.
std::vector<fs::path> parent_candidates(const fs::path& dir, const std::string& recorded) {
  std::vector<fs::path> out{dir / fs::path(recorded).filename()};
  const fs::path rel = fs::path(recorded).lexically_normal();
  const bool inside = !rel.empty() && rel.is_relative() && *rel.begin() != "..";
  if (inside && dir / rel != out.front()) out.push_back(dir / rel);
  return out;
}

}  // namespace

std::string ParentLookup::note() const {
  if (!found.empty()) return found;
  return missing.empty() ? ""
                         : missing + ": the model is used alone (name the parent with --parent)";
}

ParentLookup find_recorded_parent(const std::string& derived_path) {
  auto proto = read_model_proto(derived_path);
  if (!proto.ok()) return {};
  const auto record = parent_record(*proto);
  if (!record) return {};
  const fs::path dir = fs::path(derived_path).parent_path();
  std::string differs;
  for (const auto& candidate : parent_candidates(dir, record->file)) {
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) continue;
    auto hash = model_file_hash(candidate.string());
    if (hash.ok() && *hash == record->hash) {
      return {candidate.string(),
              fmt::format("{}: parent found by lineage: {} (hash {})", derived_path,
                          candidate.string(), record->hash),
              ""};
    }
    differs += fmt::format("{}{} has hash {}", differs.empty() ? "" : ", and ", candidate.string(),
                           hash.ok() ? *hash : hash.status().message());
  }
  return {"", "",
          fmt::format("{}: its lineage names parent {} (hash {}), {}", derived_path, record->file,
                      record->hash, differs.empty() ? "which is not beside it" : "but " + differs)};
}

}  // namespace ig

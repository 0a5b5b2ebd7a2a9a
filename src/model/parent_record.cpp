#include "model/parent_record.h"

#include <xxhash.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

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

}  // namespace ig

#include "inputs/variant_inputs.h"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace ig {

namespace {

std::map<std::string, std::string> parse_specs(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  std::map<std::string, std::string> out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items())
    if (v.is_string()) out[k] = v.get<std::string>();
  return out;
}

}  // namespace

std::map<std::string, std::string> variant_inputs(const onnx::ModelProto& model) {
  for (const auto& p : model.metadata_props())
    if (p.key() == kInputsKey) return parse_specs(p.value());
  return {};
}

void set_variant_inputs(onnx::ModelProto& model, const std::map<std::string, std::string>& specs) {
  auto* props = model.mutable_metadata_props();
  for (int i = props->size() - 1; i >= 0; --i)
    if (props->Get(i).key() == kInputsKey) props->DeleteSubrange(i, 1);
  if (specs.empty()) return;
  auto* p = model.add_metadata_props();
  p->set_key(kInputsKey);
  p->set_value(nlohmann::json(specs).dump());
}

Expected<std::vector<std::string>> variant_input_specs(const std::string& path,
                                                       const Model& model) {
  auto it = model.metadata.find(kInputsKey);
  if (it == model.metadata.end()) return std::vector<std::string>{};
  auto j = nlohmann::json::parse(it->second, nullptr, false);
  if (!j.is_object())
    return parse_error("{}: metadata {} is not a JSON object of input specs", path, kInputsKey);
  const auto dir = std::filesystem::absolute(path).parent_path();
  std::vector<std::string> out;
  for (const auto& [name, spec] : parse_specs(it->second)) {
    std::string s = spec;
    // file:REL[,options]: relative to the model's folder, so a variant folder can move.
    if (s.rfind("file:", 0) == 0) {
      const size_t end = s.find(',');
      const std::string rel = s.substr(5, end == std::string::npos ? end : end - 5);
      if (!std::filesystem::path(rel).is_absolute())
        s = "file:" + (dir / rel).string() + (end == std::string::npos ? "" : s.substr(end));
    }
    out.push_back(name + "=" + s);
  }
  return out;
}

}  // namespace ig

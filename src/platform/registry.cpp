#include "platform/registry.h"

namespace ig {

BackendRegistry& BackendRegistry::global() {
  static BackendRegistry registry;
  return registry;
}

void BackendRegistry::add(BackendFactory factory) {
  const std::string name = factory.name;
  factories_[name] = std::move(factory);
}

const BackendFactory* BackendRegistry::find(const std::string& name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, _] : factories_) out.push_back(name);
  return out;
}

Expected<std::unique_ptr<Backend>> make_backend(const PlatformSpec& spec) {
  const BackendFactory* factory = BackendRegistry::global().find(spec.backend);
  if (!factory) {
    std::string names;
    for (const auto& n : BackendRegistry::global().names())
      names += (names.empty() ? "" : ", ") + n;
    return invalid_argument("platform '{}': unknown backend '{}' (available: {})", spec.to_string(),
                            spec.backend, names);
  }
  return factory->make(spec);
}

}  // namespace ig

// Backends register a factory under their spec name ("ref", "onednn", ...), so adding a backend
// touches no shared file.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "platform/spec.h"

namespace ig {

struct BackendFactory {
  std::string name;
  std::string description;
  // Builds the backend for a spec; unknown keys or values are errors that list the valid ones.
  std::function<Expected<std::unique_ptr<Backend>>(const PlatformSpec& spec)> make;
  // Environment variables the worker process must have from its start (libraries read knobs such
  // as OPENBLAS_CORETYPE or DNNL_MAX_CPU_ISA once, at load time). Optional.
  std::function<Expected<std::map<std::string, std::string>>(const PlatformSpec& spec)> environment;
};

class BackendRegistry {
 public:
  static BackendRegistry& global();
  void add(BackendFactory factory);
  const BackendFactory* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, BackendFactory> factories_;
};

// Builds the backend a spec names; unknown backends, keys or values are errors listing the valid
// ones.
Expected<std::unique_ptr<Backend>> make_backend(const PlatformSpec& spec);

struct BackendRegistrar {
  explicit BackendRegistrar(BackendFactory f) { BackendRegistry::global().add(std::move(f)); }
};

}  // namespace ig

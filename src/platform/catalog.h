// The platforms each backend knows how to name: `infergap platforms` probes them, presets
// (`--preset cpu-sweep`) pick from them. A backend adds its candidates with a CandidateRegistrar
// next to its factory, so a new backend extends the list without touching a shared file.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

struct PlatformCandidate {
  std::string spec;                  // e.g. "blas:core=Haswell,lib=openblas"
  std::vector<std::string> presets;  // extra presets it belongs to, e.g. "cpu-sweep"
  std::string note;                  // what it exercises, for listings
  bool hidden = false;               // only through a preset (test-only platforms)
};

class PlatformCatalog {
 public:
  using Lister = std::function<std::vector<PlatformCandidate>()>;
  static PlatformCatalog& global();
  void add(const std::string& backend, Lister lister);
  // Every backend's candidates, backends in name order, each backend's in its own order.
  std::vector<std::pair<std::string, PlatformCandidate>> candidates() const;

 private:
  std::vector<std::pair<std::string, Lister>> listers_;
};

struct CandidateRegistrar {
  CandidateRegistrar(const std::string& backend, PlatformCatalog::Lister lister) {
    PlatformCatalog::global().add(backend, std::move(lister));
  }
};

// The options that turn a backend's cross-node fusion off (onednn: fuse=off, ort: opt=disabled):
// the self-check re-runs a span of nodes unfused on the same library. Registered next to the
// backend's factory with an UnfusedRegistrar; a backend without fusion registers nothing.
std::map<std::string, std::map<std::string, std::string>>& unfused_options();
struct UnfusedRegistrar {
  UnfusedRegistrar(const std::string& backend, std::map<std::string, std::string> options) {
    unfused_options()[backend] = std::move(options);
  }
};

// The catalog as a coordinator sees it: what the worker executable registered (read with
// read_catalog, worker/probe.h), since the coordinator links no backend.
struct CatalogEntry {
  std::string spec;
  std::string backend;
  std::vector<std::string> presets;
  std::string note;
  bool hidden = false;
};

struct Catalog {
  std::vector<std::pair<std::string, std::string>> backends;  // name, description
  std::vector<CatalogEntry> candidates;
  std::map<std::string, std::map<std::string, std::string>> unfused;  // as unfused_options()
  std::vector<std::string> presets() const;                           // every preset name, sorted
};

// `spec` with its backend's unfused options set (canonical); `spec` itself for a backend that
// fuses nothing.
Expected<std::string> unfused_spec(const Catalog& catalog, const std::string& spec);

// "all" (every visible candidate), a backend name, or a preset a backend declared.
Expected<std::vector<std::string>> preset_specs(const Catalog& catalog, const std::string& preset);

}  // namespace ig

// The platforms each backend knows how to name: `infergap platforms` probes them, presets
// (`--preset cpu-sweep`) pick from them. A backend adds its candidates with a CandidateRegistrar
// next to its factory, so a new backend extends the list without touching a shared file.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "platform/knobs.h"

namespace ig {

struct PlatformCandidate {
  std::string spec;                  // e.g. "blas:core=Haswell,lib=openblas"
  std::vector<std::string> presets;  // extra presets it belongs to, e.g. "cpu-sweep"
  std::string note;                  // what it exercises, for listings
  bool hidden = false;               // only through a preset (test-only platforms)
  // Position in presets that order their platforms across backends (lower first; the default
  // study's `demo` runs the emulator first); a preset without ranks keeps the catalog's order.
  std::map<std::string, int> ranks = {};
};

// The default study's preset `demo` takes one or two platforms per code-path family, so that two
// CIFAR models on three inputs stay within a few minutes on two cores; its ranks order it across
// backends: ref 1x, onednn 2x, blas 3x, opencv 4x, ort 5x.
// Adds the listed specs of `list` to `preset` at the given ranks. A spec not in the list is a
// programming error that the catalog test catches: the preset then lacks it.
void join_preset(std::vector<PlatformCandidate>& list, const std::string& preset,
                 const std::vector<std::pair<std::string, int>>& members);

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

// The catalog as a coordinator sees it: what the worker executable registered (read with
// read_catalog, worker/probe.h), since the coordinator links no backend.
struct CatalogEntry {
  std::string spec;
  std::string backend;
  std::vector<std::string> presets;
  std::string note;
  bool hidden = false;
  std::map<std::string, int> ranks;  // as PlatformCandidate's
};

struct Catalog {
  std::vector<std::pair<std::string, std::string>> backends;  // name, description
  std::vector<CatalogEntry> candidates;
  KnobTables knobs;                          // every backend's, as registered_knobs()
  std::vector<std::string> presets() const;  // every preset name, sorted
};

// `spec` with its backend's eager options set (its knob table's eager values: fusion and graph
// compilation off), canonical; `spec` itself for a backend that fuses nothing.
Expected<std::string> unfused_spec(const KnobTables& knobs, const std::string& spec);
Expected<std::string> unfused_spec(const Catalog& catalog, const std::string& spec);

// "all" (every visible candidate), a backend name, or a preset a backend declared.
Expected<std::vector<std::string>> preset_specs(const Catalog& catalog, const std::string& preset);

}  // namespace ig

// Whether a model file is the version an earlier run loaded, for caches that live across runs
// (oneDNN primitives and reordered weights).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/graph.h"

namespace ig {

// Seconds after a write during which a file's stat may not show a second write: timestamps
// have a coarse tick (and network file systems their own clocks), as with git's "racily clean"
// index entries.
inline constexpr double kRacySeconds = 2.0;

class ModelVersion {
 public:
  enum Check { kSame, kChanged, kNoFile };
  // kSame when `model` comes from the same file version as the model of the previous call.
  // Compares path, size, inode and modification time; while the file is younger than
  // kRacySeconds (or was when recorded) the content (file bytes and initializers) is compared
  // too. kNoFile for a model without a readable file (parsed from bytes): cache nothing.
  Check check(const Model& model);

 private:
  std::string stat_;                 // "" when nothing is recorded
  std::optional<uint64_t> content_;  // recorded while the file was racily young
};

}  // namespace ig

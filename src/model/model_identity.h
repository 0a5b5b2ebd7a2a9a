// Whether a model file is the version an earlier run loaded, for caches that live across runs
// (the worker's loaded model, oneDNN primitives and reordered weights).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ig {

// Seconds after a write during which a file's stat may not show a second write: timestamps
// have a coarse tick (and network file systems their own clocks), as with git's "racily clean"
// index entries.
inline constexpr double kRacySeconds = 2.0;

// "path:size:mtime" of a model file: the key of caches that hold what was made from one version
// of it (a backend's sessions or compiled programs); a file that cannot be read keys as size 0.
std::string model_file_key(const std::string& path);

class ModelVersion {
 public:
  enum Check { kSame, kChanged, kNoFile };
  // kSame when `path` is the same file version as at the previous call. Compares path, size,
  // inode and modification time; while the file is younger than kRacySeconds (or was when
  // recorded) its bytes too. kNoFile for a path that is no readable file (a model parsed from
  // bytes): cache nothing. External data files are not compared.
  Check check(const std::string& path);

 private:
  std::string stat_;                 // "" when nothing is recorded
  std::optional<uint64_t> content_;  // recorded while the file was racily young
};

}  // namespace ig

#include "model/model_identity.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <ctime>
#include <fstream>
#include <iterator>

namespace ig {

namespace {

uint64_t content_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return XXH3_64bits(bytes.data(), bytes.size());
}

}  // namespace

std::string model_file_key(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return fmt::format("{}:{}:{}.{}", path, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

ModelVersion::Check ModelVersion::check(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) {
    stat_.clear();
    content_.reset();
    return kNoFile;
  }
  const std::string id = fmt::format("{}:{}:{}:{}.{}", path, st.st_size, st.st_ino,
                                     st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  const double age = static_cast<double>(now.tv_sec - st.st_mtim.tv_sec) +
                     1e-9 * static_cast<double>(now.tv_nsec - st.st_mtim.tv_nsec);
  const bool racy = age < kRacySeconds;
  if (id != stat_) {
    stat_ = id;
    content_ = racy ? std::optional(content_hash(path)) : std::nullopt;
    return kChanged;
  }
  if (!content_) return kSame;  // recorded when already old: any rewrite since changed the stat
  const uint64_t h = content_hash(path);
  const bool same = h == *content_;
  // Verified once the file is old: from then on the stat alone tells.
  content_ = racy || !same ? std::optional(h) : std::nullopt;
  return same ? kSame : kChanged;
}

}  // namespace ig

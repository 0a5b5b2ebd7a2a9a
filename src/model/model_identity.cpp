#include "model/model_identity.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <ctime>
#include <fstream>
#include <iterator>

#include "tensor/hash.h"

namespace ig {

namespace {

uint64_t content_hash(const Model& model) {
  std::ifstream in(model.path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, bytes.data(), bytes.size());
  // The loaded initializers too: external data lives outside the file.
  for (const auto& [name, t] : model.graph.initializers) {  // std::map: a fixed order
    const uint64_t h = tensor_hash(t);
    XXH3_64bits_update(state, name.data(), name.size() + 1);
    XXH3_64bits_update(state, &h, sizeof h);
  }
  const uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return h;
}

}  // namespace

ModelVersion::Check ModelVersion::check(const Model& model) {
  struct stat st {};
  if (model.path.empty() || ::stat(model.path.c_str(), &st) != 0) {
    stat_.clear();
    content_.reset();
    return kNoFile;
  }
  const std::string id = fmt::format("{}:{}:{}:{}.{}", model.path, st.st_size, st.st_ino,
                                     st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  const double age = static_cast<double>(now.tv_sec - st.st_mtim.tv_sec) +
                     1e-9 * static_cast<double>(now.tv_nsec - st.st_mtim.tv_nsec);
  const bool racy = age < kRacySeconds;
  if (id != stat_) {
    stat_ = id;
    content_ = racy ? std::optional(content_hash(model)) : std::nullopt;
    return kChanged;
  }
  if (!content_) return kSame;  // recorded when already old: any rewrite since changed the stat
  const uint64_t h = content_hash(model);
  const bool same = h == *content_;
  // Verified once the file is old: from then on the stat alone tells.
  content_ = racy || !same ? std::optional(h) : std::nullopt;
  return same ? kSame : kChanged;
}

}  // namespace ig

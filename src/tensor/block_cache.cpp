#include "tensor/block_cache.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

namespace ig {

namespace {

struct KeptBlock {
  std::byte* p;
  size_t bytes;
  uint64_t freed;  // order of release: the oldest goes first
};

// At most a few hundred entries (the limit over the minimum size): linear scans are cheap.
struct BlockCache {
  std::mutex mu;
  size_t limit = 0;
  size_t held = 0;
  uint64_t clock = 0;
  std::vector<KeptBlock> kept;
};

BlockCache& cache() {
  // Never destroyed: tensors held by other statics may be freed after this function's statics.
  static BlockCache* const c = new BlockCache;
  return *c;
}

std::byte* fresh(size_t bytes) {
  return static_cast<std::byte*>(::operator new[](bytes ? bytes : 1, std::align_val_t{64}));
}

void free_block(std::byte* p) { ::operator delete[](p, std::align_val_t{64}); }

// Frees the oldest kept blocks until `held` fits `limit`; the caller holds the lock.
void shrink(BlockCache& c) {
  while (c.held > c.limit && !c.kept.empty()) {
    auto oldest = std::min_element(c.kept.begin(), c.kept.end(),
                                   [](const auto& a, const auto& b) { return a.freed < b.freed; });
    free_block(oldest->p);
    c.held -= oldest->bytes;
    *oldest = c.kept.back();
    c.kept.pop_back();
  }
}

}  // namespace

void keep_freed_tensor_blocks(size_t max_bytes) {
  BlockCache& c = cache();
  const std::lock_guard lock(c.mu);
  c.limit = max_bytes;
  shrink(c);
}

std::byte* acquire_tensor_block(size_t bytes) {
  if (bytes >= kCachedTensorBlockMin) {
    BlockCache& c = cache();
    const std::lock_guard lock(c.mu);
    // The most recently freed block of that size: its pages are the likeliest still in cache.
    auto best = c.kept.end();
    for (auto it = c.kept.begin(); it != c.kept.end(); ++it)
      if (it->bytes == bytes && (best == c.kept.end() || it->freed > best->freed)) best = it;
    if (best != c.kept.end()) {
      std::byte* p = best->p;
      c.held -= bytes;
      *best = c.kept.back();
      c.kept.pop_back();
      return p;
    }
  }
  return fresh(bytes);
}

void release_tensor_block(std::byte* p, size_t bytes) {
  if (p && bytes >= kCachedTensorBlockMin) {
    BlockCache& c = cache();
    const std::lock_guard lock(c.mu);
    if (bytes <= c.limit) {
      c.kept.push_back({p, bytes, ++c.clock});
      c.held += bytes;
      shrink(c);
      return;
    }
  }
  free_block(p);
}

}  // namespace ig

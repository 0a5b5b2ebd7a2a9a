// Tensors by key, the least recently used dropped past a byte budget. The coordinator's caches
// (the store's references, an analysis's tensors) use it so that they hold at most their budget
// whatever the model's size; a caller that misses reloads. Not thread-safe: callers lock.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <utility>

#include "tensor/tensor.h"

namespace ig {

template <typename Key>
class TensorLru {
 public:
  explicit TensorLru(uint64_t budget_bytes) : budget_(budget_bytes) {}

  // The tensor kept for `key`, now the most recently used; nullptr when there is none.
  const Tensor* find(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second);
    return &it->second->second;
  }

  // Keeps `t` for `key` (replacing what was there); one larger than the whole budget is not kept.
  void put(const Key& key, Tensor t) {
    erase(key);
    if (bytes_of(t) > budget_) return;
    bytes_ += bytes_of(t);
    lru_.emplace_front(key, std::move(t));
    index_.emplace(key, lru_.begin());
    evict();
  }

  void erase(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return;
    bytes_ -= bytes_of(it->second->second);
    lru_.erase(it->second);
    index_.erase(it);
  }

  void set_budget(uint64_t bytes) {
    budget_ = bytes;
    evict();
  }
  uint64_t budget() const { return budget_; }
  uint64_t bytes() const { return bytes_; }
  size_t size() const { return index_.size(); }

 private:
  // String tensors have no flat bytes; each counts as one byte so that they are bounded too.
  static uint64_t bytes_of(const Tensor& t) {
    return t.dtype() == DType::kString ? 1 : static_cast<uint64_t>(t.nbytes());
  }
  void evict() {
    while (bytes_ > budget_ && !lru_.empty()) {
      const Key oldest = lru_.back().first;
      erase(oldest);
    }
  }

  using List = std::list<std::pair<Key, Tensor>>;
  uint64_t budget_, bytes_ = 0;
  List lru_;  // most recently used first
  std::map<Key, typename List::iterator> index_;
};

}  // namespace ig

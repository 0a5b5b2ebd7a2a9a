#include "store/reference_index.h"

namespace ig {

namespace {
// What an entry counts against the span: its tensor's bytes.
size_t span_of(const ReferenceIndex::Entry& e) {
  return static_cast<size_t>(shape_numel(e.key.shape)) * dtype_size(e.key.dtype);
}
}  // namespace

const ReferenceIndex::Entry* ReferenceIndex::find(const std::string& id) {
  if (auto it = pending_.find(id); it != pending_.end()) return &it->second;
  auto it = entries_.find(id);
  if (it == entries_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.second);
  return &it->second.first;
}

void ReferenceIndex::offer(const std::string& id, Entry entry) { pending_[id] = std::move(entry); }

void ReferenceIndex::commit() {
  for (auto& [id, entry] : pending_) {
    if (auto it = entries_.find(id); it != entries_.end()) {
      bytes_ -= span_of(it->second.first);
      lru_.erase(it->second.second);
      entries_.erase(it);
    }
    bytes_ += span_of(entry);
    lru_.push_front(id);
    entries_.emplace(id, std::make_pair(std::move(entry), lru_.begin()));
  }
  pending_.clear();
  evict();
}

void ReferenceIndex::evict() {
  while (bytes_ > budget_ && !lru_.empty()) {
    auto it = entries_.find(lru_.back());
    bytes_ -= span_of(it->second.first);
    entries_.erase(it);
    lru_.pop_back();
  }
}

}  // namespace ig

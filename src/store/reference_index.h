// Which stored tensor a new one of the same value is XORed against (store/tensor_blob.h): per
// (model, input, value), the first tensor the store wrote plainly, replaced by the oracle's when
// that arrives. Entries a transaction adds count only once it commits (a rolled-back reference
// would leave undecodable blobs). Entries are dropped, least recently used first, past a fixed
// span of their tensors' bytes; a value whose entry was dropped gets a new plainly stored
// reference. The tensors themselves are cached apart, under Store::set_memory_budget's bound: one
// not in memory is read back from the store (it is stored plainly), so what is written does not
// depend on that bound.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <string>

#include "store/store.h"
#include "tensor/tensor_lru.h"

namespace ig {

class ReferenceIndex {
 public:
  struct Entry {
    TensorKey key;
    bool oracle = false;
  };
  // span_bytes: the tensor bytes whose entries are kept; memory_bytes: the tensors in memory.
  ReferenceIndex(size_t span_bytes, size_t memory_bytes)
      : budget_(span_bytes), tensors_(memory_bytes) {}

  static std::string id(const std::string& model, const std::string& input,
                        const std::string& value) {
    return model + '\0' + input + '\0' + value;
  }
  // The reference for `id`, pending ones first; nullptr when there is none.
  const Entry* find(const std::string& id);
  // A tensor just written plainly becomes the reference (pending until commit()).
  void offer(const std::string& id, Entry entry);
  void commit();
  void rollback() { pending_.clear(); }
  // References' tensors by content (so one cached for a rolled-back entry is still right).
  TensorLru<TensorKey>& tensors() { return tensors_; }

 private:
  void evict();
  size_t budget_, bytes_ = 0;
  std::map<std::string, Entry> pending_;
  std::list<std::string> lru_;  // most recent first
  std::map<std::string, std::pair<Entry, std::list<std::string>::iterator>> entries_;
  TensorLru<TensorKey> tensors_;
};

}  // namespace ig

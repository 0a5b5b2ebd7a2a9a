// Which stored tensor a new one of the same value is XORed against (store/tensor_blob.h): per
// (model, input, value), the first tensor the store wrote plainly, replaced by the oracle's when
// that arrives. Entries a transaction adds count only once it commits (a rolled-back reference
// would leave undecodable blobs). The tensors are held in memory, least recently used dropped past
// a byte budget; a value whose reference was dropped gets a new plainly stored one.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <string>

#include "store/store.h"

namespace ig {

class ReferenceIndex {
 public:
  struct Entry {
    TensorKey key;
    Tensor tensor;
    bool oracle = false;
  };
  explicit ReferenceIndex(size_t budget_bytes) : budget_(budget_bytes) {}

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

 private:
  void evict();
  size_t budget_, bytes_ = 0;
  std::map<std::string, Entry> pending_;
  std::list<std::string> lru_;  // most recent first
  std::map<std::string, std::pair<Entry, std::list<std::string>::iterator>> entries_;
};

}  // namespace ig

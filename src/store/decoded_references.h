// Store::DecodedReferences: reference tensors (the oracle's, in a study) decoded once and kept in
// the dtype of the tensors read against them. Analyses read every platform's tensor of one value
// in turn, and each is stored as the XOR with that value's reference: without this, each read
// decoded the (fp64) reference again and rounded it again. Bounded in bytes; cleared when full.
#pragma once

#include <map>
#include <mutex>
#include <utility>

#include "store/store.h"
#include "store/tensor_blob.h"

namespace ig {

struct Store::DecodedReferences {
  explicit DecodedReferences(size_t max_bytes) : max_bytes_(max_bytes) {}

  template <typename Load>
  Expected<Tensor> get(const TensorKey& ref, DType dtype, Load&& load) {
    const auto key = std::make_pair(ref, dtype);
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) return it->second;
    }
    IG_ASSIGN_OR_RETURN(Tensor stored, load());
    IG_ASSIGN_OR_RETURN(Tensor as, reference_as(stored, dtype));
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes_ + as.nbytes() > max_bytes_) {
      cache_.clear();
      bytes_ = 0;
    }
    if (as.nbytes() <= max_bytes_) {
      bytes_ += as.nbytes();
      cache_.emplace(key, as);
    }
    return as;
  }

 private:
  size_t max_bytes_;
  size_t bytes_ = 0;
  std::mutex mu_;
  std::map<std::pair<TensorKey, DType>, Tensor> cache_;
};

}  // namespace ig

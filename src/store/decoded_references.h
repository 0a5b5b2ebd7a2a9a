// Store::DecodedReferences: reference tensors (the oracle's, in a study) decoded once and kept in
// the dtype of the tensors read against them. Analyses read every platform's tensor of one value
// in turn, and each is stored as the XOR with that value's reference: without this, each read
// decoded the (fp64) reference again and rounded it again. Bounded in bytes (least recently used
// dropped; Store::set_memory_budget).
#pragma once

#include <mutex>
#include <utility>

#include "store/store.h"
#include "store/tensor_blob.h"
#include "tensor/tensor_lru.h"

namespace ig {

struct Store::DecodedReferences {
  explicit DecodedReferences(size_t max_bytes) : cache_(max_bytes) {}

  template <typename Load>
  Expected<Tensor> get(const TensorKey& ref, DType dtype, Load&& load) {
    const auto key = std::make_pair(ref, dtype);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (const Tensor* t = cache_.find(key)) return *t;
    }
    IG_ASSIGN_OR_RETURN(Tensor stored, load());
    IG_ASSIGN_OR_RETURN(Tensor as, reference_as(stored, dtype));
    std::lock_guard<std::mutex> lock(mu_);
    cache_.put(key, as);
    return as;
  }

  void set_budget(uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    cache_.set_budget(bytes);
  }

 private:
  std::mutex mu_;
  TensorLru<std::pair<TensorKey, DType>> cache_;
};

}  // namespace ig

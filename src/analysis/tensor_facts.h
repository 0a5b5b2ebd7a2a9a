// Facts about tensors that analyses compute again and again (docs/STUDY.md "Store and analysis"):
// the error of a tensor against the oracle's, the remaining precision of two tensors, how many
// elements a set of tensors disagrees on. Each depends only on the tensors' contents, so a fact
// learned once is kept in the store (table tensor_facts) and a later `compare` or `report` reads
// the number instead of decoding the tensors. The study learns them while its runs are fresh.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/store.h"

namespace ig {

class TensorFacts {
 public:
  // The kinds of facts; the names are stored.
  static constexpr const char* kOracleError = "oracle_error";  // a: tensor, b: oracle tensor
  static constexpr const char* kRemainingPrecision = "rp";     // a, b: a pair (sorted)
  static constexpr const char* kDeviating = "deviating";       // a: a set (sorted), b: ""

  static std::string key(const TensorKey& k);

  Status load(const Store& store);
  std::optional<double> find(const char* kind, const std::string& a, const std::string& b) const;
  void learn(const char* kind, const std::string& a, const std::string& b, double value);
  // What was learned since load(), written to `store`; then nothing is new.
  Status save(Store& store);
  size_t learned() const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, double> known_;
  std::vector<TensorFact> new_;
};

}  // namespace ig

#include "analysis/tensor_facts.h"

#include <fmt/format.h>

namespace ig {

namespace {

std::string map_key(std::string_view kind, std::string_view a, std::string_view b) {
  std::string k;
  k.reserve(kind.size() + a.size() + b.size() + 2);
  k.append(kind).push_back('\n');
  k.append(a).push_back('\n');
  k.append(b);
  return k;
}

}  // namespace

std::string TensorFacts::key(const TensorKey& k) {
  std::string dims;
  for (size_t i = 0; i < k.shape.size(); ++i) dims += fmt::format("{}{}", i ? "x" : "", k.shape[i]);
  return fmt::format("{:016x}/{}/{}", k.hash, dtype_name(k.dtype), dims);
}

Status TensorFacts::load(const Store& store) {
  IG_ASSIGN_OR_RETURN(auto facts, store.tensor_facts());
  std::lock_guard lock(mu_);
  for (const auto& f : facts) known_[map_key(f.kind, f.a, f.b)] = f.value;
  return Status::Ok();
}

std::optional<double> TensorFacts::find(const char* kind, const std::string& a,
                                        const std::string& b) const {
  std::lock_guard lock(mu_);
  auto it = known_.find(map_key(kind, a, b));
  if (it == known_.end()) return std::nullopt;
  return it->second;
}

void TensorFacts::learn(const char* kind, const std::string& a, const std::string& b,
                        double value) {
  std::lock_guard lock(mu_);
  if (known_.emplace(map_key(kind, a, b), value).second) new_.push_back({kind, a, b, value});
}

Status TensorFacts::save(Store& store) {
  std::vector<TensorFact> facts;
  {
    std::lock_guard lock(mu_);
    facts.swap(new_);
  }
  return store.put_tensor_facts(facts);
}

size_t TensorFacts::learned() const {
  std::lock_guard lock(mu_);
  return new_.size();
}

}  // namespace ig

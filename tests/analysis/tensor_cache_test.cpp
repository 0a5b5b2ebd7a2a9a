// TensorCache under a byte budget: the least recently used tensors are dropped, a miss reloads,
// and what get() returns does not depend on the budget.
#include <gtest/gtest.h>

#include "analysis/study_data.h"
#include "tensor/hash.h"

namespace ig {
namespace {

Tensor ramp(int64_t n, float start) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = start + static_cast<float>(i);
  return Tensor::from_vector<float>(std::move(v), {n});
}

TEST(TensorCache, ABudgetBoundsWhatItHoldsAndAMissReloadsTheSameTensor) {
  std::map<TensorKey, Tensor> stored;
  std::vector<TensorKey> keys;
  for (int i = 0; i < 8; ++i) {
    const Tensor t = ramp(256, static_cast<float>(i) * 1000);  // 1 KiB each
    keys.push_back(TensorKey::of(t));
    stored[keys.back()] = t;
  }
  int64_t loaded = 0;
  auto load = [&](const TensorKey& k) -> Expected<Tensor> {
    ++loaded;
    return stored.at(k).clone();
  };
  TensorCache small(load, nullptr, 3 * 1024);
  TensorCache unbounded(load, nullptr, uint64_t{1} << 40);
  for (int round = 0; round < 3; ++round) {
    for (const auto& k : keys) {
      auto a = small.get(k);
      auto b = unbounded.get(k);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_TRUE(a->bitwise_equal(*b));
      EXPECT_EQ(tensor_hash(*a), k.hash);
      EXPECT_LE(small.cached_bytes(), 3u * 1024);
    }
  }
  EXPECT_EQ(unbounded.loads(), 8);
  EXPECT_EQ(small.loads(), 24);  // cycling through more than it holds: every get misses
  // The most recently used stays.
  const int64_t before = small.loads();
  ASSERT_TRUE(small.get(keys.back()).ok());
  EXPECT_EQ(small.loads(), before);
  EXPECT_EQ(loaded, 32);
}

}  // namespace
}  // namespace ig

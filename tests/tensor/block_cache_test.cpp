// The freed-block cache (tensor/block_cache.h): a kept block serves the next tensor of its size,
// the oldest go first past the limit, and a zero-filled tensor is zero even on a reused block.
#include "tensor/block_cache.h"

#include <gtest/gtest.h>

#include "tensor/tensor.h"

namespace ig {
namespace {

constexpr size_t kBlock = kCachedTensorBlockMin;

struct CacheOff {
  ~CacheOff() { keep_freed_tensor_blocks(0); }
};

TEST(TensorBlockCache, AKeptBlockServesTheNextOfItsSizeAndTheOldestGoFirst) {
  CacheOff off;
  keep_freed_tensor_blocks(2 * kBlock);
  std::byte* a = acquire_tensor_block(kBlock);
  std::byte* b = acquire_tensor_block(kBlock);
  std::byte* c = acquire_tensor_block(kBlock);
  std::byte* other = acquire_tensor_block(2 * kBlock);
  release_tensor_block(a, kBlock);
  release_tensor_block(b, kBlock);
  release_tensor_block(c, kBlock);          // over the limit: a, the oldest, is freed
  release_tensor_block(other, 2 * kBlock);  // over the limit: b and c go
  keep_freed_tensor_blocks(2 * kBlock);
  std::byte* again = acquire_tensor_block(2 * kBlock);
  EXPECT_EQ(again, other);
  release_tensor_block(again, 2 * kBlock);
  keep_freed_tensor_blocks(3 * kBlock);  // other (2 blocks) stays; b and c were freed
  std::byte* d = acquire_tensor_block(kBlock);
  std::byte* e = acquire_tensor_block(kBlock);
  release_tensor_block(d, kBlock);
  release_tensor_block(e, kBlock);
  // Both fit only without `other`: it is the oldest and goes. The newest of a size comes first.
  EXPECT_EQ(acquire_tensor_block(kBlock), e);
  EXPECT_EQ(acquire_tensor_block(kBlock), d);
  release_tensor_block(d, kBlock);
  release_tensor_block(e, kBlock);
}

TEST(TensorBlockCache, AZeroFilledTensorIsZeroOnAReusedBlock) {
  CacheOff off;
  keep_freed_tensor_blocks(8 * kBlock);
  const Shape shape{static_cast<int64_t>(kBlock / sizeof(float))};
  const std::byte* first = nullptr;
  {
    Tensor t(DType::kFloat32, shape);
    first = t.raw();
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = 1.0f;
  }
  Tensor u(DType::kFloat32, shape);
  EXPECT_EQ(u.raw(), first);  // the block came back
  for (int64_t i = 0; i < u.numel(); ++i) ASSERT_EQ(u.data<float>()[i], 0.0f) << i;
}

}  // namespace
}  // namespace ig

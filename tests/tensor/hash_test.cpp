// tensor_hash runs XXH3 on the widest vector unit the CPU has: its values must stay those of the
// portable XXH3 that every store, host record and trace already holds.
#include <gtest/gtest.h>
#include <xxhash.h>

#include "tensor/hash.h"
#include "tensor/tensor.h"

namespace ig {
namespace {

TEST(TensorHash, IsThePortableXxh3OfTheBytesAtEverySize) {
  // Sizes across XXH3's short, medium and striped long-input paths, and odd tails.
  for (int64_t n : {0, 1, 3, 4, 17, 33, 60, 64, 257, 1024, 4099, 65537, 300000}) {
    SCOPED_TRACE(n);
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 977) * 0.37f - 11.0f;
    const Tensor t = Tensor::from_vector(v, {n});
    EXPECT_EQ(tensor_hash(t), XXH3_64bits(t.raw(), t.nbytes()));
  }
}

}  // namespace
}  // namespace ig

// The coordinator's trace memory: tensors past the budget go to the spill file and come back bit
// for bit; the bytes are given back when the last copy of a traced tensor goes.
#include "results/trace_memory.h"

#include <gtest/gtest.h>

#include <cstring>

#include "tensor/hash.h"

namespace ig {
namespace {

// Every byte pattern, NaN payloads and signed zeros included: a spill must not touch a bit.
TracedTensor pattern(DType dtype, int64_t n, uint8_t seed) {
  TracedTensor t;
  t.value = "v" + std::to_string(seed);
  t.tensor = Tensor(dtype, {n});
  std::byte* p = t.tensor.raw();
  for (size_t i = 0; i < t.tensor.nbytes(); ++i)
    p[i] = static_cast<std::byte>((i * 131 + seed * 7 + (i >> 8)) & 0xff);
  t.hash = tensor_hash(t.tensor);
  t.dtype = dtype;
  t.shape = t.tensor.shape();
  return t;
}

TEST(TraceMemory, PastTheBudgetTensorsSpillAndReadBackBitExact) {
  TraceMemory memory(4096, "");
  std::vector<TracedTensor> kept;
  std::vector<Tensor> originals;
  const DType dtypes[] = {DType::kFloat32, DType::kFloat64, DType::kFloat16,
                          DType::kInt8,    DType::kBool,    DType::kInt64};
  for (uint8_t i = 0; i < 12; ++i) {
    TracedTensor t = pattern(dtypes[i % 6], 700 + i, i);
    originals.push_back(t.tensor.clone());
    ASSERT_TRUE(memory.hold(t).ok());
    kept.push_back(std::move(t));
  }
  EXPECT_LE(memory.held_bytes(), 4096u);
  EXPECT_LE(memory.peak_held_bytes(), 4096u);
  EXPECT_GT(memory.spilled_bytes(), 0u);
  EXPECT_EQ(memory.spilled_total(), memory.spilled_bytes());
  int spilled = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    spilled += kept[i].spilled() ? 1 : 0;
    EXPECT_EQ(kept[i].tensor.defined(), !kept[i].spilled());
    EXPECT_TRUE(kept[i].has_data());
    auto back = kept[i].data();
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_TRUE(back->bitwise_equal(originals[i])) << i;
    EXPECT_EQ(tensor_hash(*back), kept[i].hash);
  }
  EXPECT_GE(spilled, 9);
  kept.clear();
  EXPECT_EQ(memory.held_bytes(), 0u);
  EXPECT_EQ(memory.spilled_bytes(), 0u);
}

TEST(TraceMemory, CopiesShareTheHoldAndTheLastOneGivesTheBytesBack) {
  TraceMemory memory(0, "");
  TracedTensor t = pattern(DType::kFloat32, 64, 3);
  const Tensor original = t.tensor.clone();
  ASSERT_TRUE(memory.hold(t).ok());
  ASSERT_TRUE(t.spilled());
  {
    TracedTensor copy = t;                // a graph output that names a traced value
    ASSERT_TRUE(memory.hold(copy).ok());  // already held: left alone
    EXPECT_EQ(memory.spilled_bytes(), 256u);
    t = TracedTensor();
    auto back = copy.data();
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(back->bitwise_equal(original));
  }
  EXPECT_EQ(memory.spilled_bytes(), 0u);
  // The file starts over once empty; what follows still reads back.
  TracedTensor u = pattern(DType::kFloat64, 33, 9);
  const Tensor u_original = u.tensor.clone();
  ASSERT_TRUE(memory.hold(u).ok());
  auto back = u.data();
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->bitwise_equal(u_original));
}

TEST(TraceMemory, WithinTheBudgetTensorsStayAndAreCounted) {
  TraceMemory memory(1 << 20, "");
  RunResult r;
  r.trace.push_back(pattern(DType::kFloat32, 100, 1));
  r.outputs.push_back(pattern(DType::kFloat32, 50, 2));
  TracedTensor none;  // keep_tensors false: no data, nothing to hold
  r.trace.push_back(none);
  TracedTensor strings;
  strings.tensor = Tensor::from_strings({"a", "b"}, {2});
  r.trace.push_back(strings);
  ASSERT_TRUE(memory.hold(r).ok());
  EXPECT_EQ(memory.held_bytes(), 600u);
  EXPECT_EQ(memory.spilled_bytes(), 0u);
  EXPECT_FALSE(r.trace[0].spilled());
  EXPECT_TRUE(r.trace[0].tensor.defined());
  EXPECT_FALSE(r.trace[1].has_data());
  EXPECT_EQ(r.trace[2].hold, nullptr);
  r = RunResult();
  EXPECT_EQ(memory.held_bytes(), 0u);
  EXPECT_EQ(memory.peak_held_bytes(), 600u);
}

}  // namespace
}  // namespace ig

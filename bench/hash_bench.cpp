// The physical limit of capture: hashing a layer's bytes (tensor_hash, XXH3-64, as every traced
// run does) against a plain memcpy of the same bytes. 64 MiB, larger than the caches, so both
// stream from memory.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "inputs/random_input.h"
#include "tensor/hash.h"

namespace ig {
namespace {

constexpr int64_t kFloats = int64_t{16} << 20;  // 64 MiB of fp32

const Tensor& buffer() {
  static const Tensor t = random_uniform_tensor(DType::kFloat32, {kFloats}, 3);
  return t;
}

void BM_Capture_hash_xxh3(benchmark::State& state) {
  const Tensor& t = buffer();
  for (auto _ : state) benchmark::DoNotOptimize(tensor_hash(t));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(t.nbytes()));
}

void BM_Capture_memcpy_baseline(benchmark::State& state) {
  const Tensor& t = buffer();
  std::vector<std::byte> dst(t.nbytes());
  for (auto _ : state) {
    std::memcpy(dst.data(), t.raw(), t.nbytes());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(t.nbytes()));
}

BENCHMARK(BM_Capture_memcpy_baseline)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Capture_hash_xxh3)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace ig

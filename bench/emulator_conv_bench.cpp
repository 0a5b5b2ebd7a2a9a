// Cost of the emulated numerics on a ResNet-sized convolution (ResNet-18 layer2: 64->64 channels,
// 3x3, 56x56), one image, one thread. Compare ratios within one run; absolute times are noise.
#include <benchmark/benchmark.h>

#include "backends/ref/ref_backend.h"
#include "inputs/random_input.h"
#include "platform/registry.h"
#include "synth/conv_model.h"

namespace ig {
namespace {

Model resnet_conv() { return single_conv_model("bench-conv", {64, 64, 3, 3}, 1, {1, 1, 1, 1}); }

void BM_RefConv(benchmark::State& state, const char* spec) {
  static const Model model = resnet_conv();
  static const Tensor x = random_uniform_tensor(DType::kFloat32, {1, 64, 56, 56}, 2);
  auto backend = make_backend(*parse_platform_spec(spec));
  if (!backend.ok()) {
    state.SkipWithError(backend.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    auto out = (*backend)->run(model, {{"X", x}}, nullptr);
    benchmark::DoNotOptimize(out);
  }
  state.counters["GMAC/s"] =
      benchmark::Counter(64.0 * 56 * 56 * 64 * 9 * static_cast<double>(state.iterations()) / 1e9,
                         benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_RefConv, im2col_seq_baseline, "ref:conv=im2col")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, direct_seq, "ref")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, im2col_fma, "ref:conv=im2col,fma=on")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, im2col_lanes8, "ref:acc=lanes8,conv=im2col")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, im2col_lanes16_split2, "ref:acc=lanes16,conv=im2col,split=2")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, im2col_block64, "ref:acc=block64,conv=im2col")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, im2col_pairwise, "ref:acc=pairwise,conv=im2col")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, im2col_exact, "ref:acc=exact,conv=im2col")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, winograd2, "ref:conv=winograd2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, winograd4, "ref:conv=winograd4")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, fft, "ref:conv=fft")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, fp16, "ref:conv=im2col,dtype=fp16")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RefConv, fp64, "ref:conv=im2col,dtype=fp64")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ig

BENCHMARK_MAIN();

// The cuda platform's knobs and listing: no GPU needed, so these run on every machine.
#include <gtest/gtest.h>

#include <algorithm>

#include "platform/bindings/cuda_options.h"
#include "platform/catalog.h"
#include "platform/registry.h"
#include "platform/spec.h"

namespace ig {
namespace {

using cuda::Algo;

Expected<cuda::Options> parse(const std::string& text) {
  auto spec = parse_platform_spec(text);
  EXPECT_TRUE(spec.ok()) << text;
  return cuda::parse_options(*spec);
}

TEST(CudaOptions, DefaultsAreHeuristicStrictFp32) {
  auto o = parse("cuda");
  ASSERT_TRUE(o.ok()) << o.status().to_string();
  EXPECT_EQ(o->algos, std::vector<Algo>{Algo::kHeuristic});
  EXPECT_FALSE(o->tf32);
  EXPECT_FALSE(o->deterministic);
  EXPECT_EQ(o->device, 0);
  EXPECT_FALSE(o->fallback_ref);
}

TEST(CudaOptions, EveryAlgorithmNameParsesToItsCudnnOrder) {
  for (size_t i = 0; i < static_cast<size_t>(Algo::kCount); ++i) {
    auto o = parse(std::string("cuda:algo=") + cuda::kAlgoNames[i]);
    ASSERT_TRUE(o.ok()) << o.status().to_string();
    EXPECT_EQ(static_cast<size_t>(o->algos.at(0)), i);
  }
  // Fixed algorithms keep cudnnConvolutionFwdAlgo_t's numbering (winograd is 6).
  EXPECT_EQ(static_cast<int>(Algo::kWinograd), 6);
  EXPECT_TRUE(cuda::is_fixed(Algo::kWinogradNonfused));
  EXPECT_FALSE(cuda::is_fixed(Algo::kAutotune));
}

TEST(CudaOptions, PerLayerListIsSlashSeparatedAndMatchedByConvCount) {
  auto o = parse("cuda:algo=gemm/fft/autotune,tf32=on,deterministic=on,device=1");
  ASSERT_TRUE(o.ok()) << o.status().to_string();
  EXPECT_EQ(o->algos, (std::vector<Algo>{Algo::kGemm, Algo::kFft, Algo::kAutotune}));
  EXPECT_TRUE(o->tf32);
  EXPECT_TRUE(o->deterministic);
  EXPECT_EQ(o->device, 1);
  EXPECT_EQ(cuda::algos_to_string(o->algos), "gemm/fft/autotune");
  EXPECT_EQ(*cuda::algo_for_conv(*o, 1, 3), Algo::kFft);
  auto wrong = cuda::algo_for_conv(*o, 0, 20);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("lists 3 algorithms but the model has 20 convolutions"),
            std::string::npos)
      << wrong.status().message();
  // One algorithm applies to every convolution, however many.
  auto one = parse("cuda:algo=winograd");
  EXPECT_EQ(*cuda::algo_for_conv(*one, 41, 42), Algo::kWinograd);
}

TEST(CudaOptions, BadValuesNameTheKeyAndListTheValidOnes) {
  auto bad_algo = parse("cuda:algo=gemm/wino");
  ASSERT_FALSE(bad_algo.ok());
  EXPECT_NE(bad_algo.status().message().find("'wino' is not an algorithm"), std::string::npos);
  EXPECT_NE(bad_algo.status().message().find("implicit-precomp-gemm"), std::string::npos);
  EXPECT_FALSE(parse("cuda:algo=gemm/").ok());  // an empty entry is not an algorithm
  auto bad_tf32 = parse("cuda:tf32=yes");
  ASSERT_FALSE(bad_tf32.ok());
  EXPECT_NE(bad_tf32.status().message().find("tf32=yes is not valid (valid values: on, off)"),
            std::string::npos)
      << bad_tf32.status().message();
  auto bad_key = parse("cuda:algorithm=gemm");
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.status().message().find("unknown key 'algorithm'"), std::string::npos);
  EXPECT_FALSE(parse("cuda:tune-runs=0").ok());
  EXPECT_FALSE(parse("cuda:device=-1").ok());
}

TEST(CudaOptions, FactoryRejectsBadSpecsBeforeLookingForAGpu) {
  auto spec = parse_platform_spec("cuda:algo=bogus");
  ASSERT_TRUE(spec.ok());
  auto backend = make_backend(*spec);
  ASSERT_FALSE(backend.ok());
  EXPECT_EQ(backend.status().code(), StatusCode::kInvalidArgument) << backend.status().to_string();
}

TEST(CudaOptions, CatalogListsEveryFixedAlgorithmAndAutotune) {
  std::vector<std::string> gpu, algos;
  for (const auto& [backend, c] : PlatformCatalog::global().candidates()) {
    if (backend != "cuda") continue;
    auto has = [&](const char* p) {
      return std::find(c.presets.begin(), c.presets.end(), p) != c.presets.end();
    };
    if (has("gpu")) gpu.push_back(c.spec);
    if (has("gpu-algos")) algos.push_back(c.spec);
    // Listed specs are canonical, so probes and stores key them the same way.
    EXPECT_EQ(parse_platform_spec(c.spec)->to_string(), c.spec);
    EXPECT_TRUE(parse(c.spec).ok()) << c.spec;
  }
  EXPECT_EQ(algos.size(), cuda::kFixedAlgoCount);
  EXPECT_NE(std::find(gpu.begin(), gpu.end(), "cuda:algo=autotune"), gpu.end());
  EXPECT_NE(std::find(gpu.begin(), gpu.end(), "cuda:algo=winograd-nonfused"), gpu.end());
}

}  // namespace
}  // namespace ig

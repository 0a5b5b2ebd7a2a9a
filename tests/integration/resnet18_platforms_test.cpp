// [Backends] acceptance: a ResNet-18 (the zoo's Cifar10-R18) on at least 15 real-library platforms,
// each in its own worker with every layer traced, every output within rtol 1e-3 of the fp64
// oracle, and at least 5 distinct outputs among them.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "../support/onnx_builder.h"
#include "inputs/random_input.h"
#include "synth/zoo.h"
#include "worker/worker_pool.h"

namespace ig {
namespace {

TEST(Resnet18Platforms, RealLibrariesAgreeWithTheOracleWithinToleranceAndSplitIntoClasses) {
  testing::TempDir dir;
  auto proto = build_zoo_model("Cifar10-R18", ZooOptions{});
  ASSERT_TRUE(proto.ok()) << proto.status().to_string();
  const std::string model = dir.file("resnet18.onnx");
  ASSERT_TRUE(save_model_proto(*proto, model).ok());
  const std::string input = proto->graph().input(0).name();

  WorkerPool pool{WorkerPoolOptions{.worker_executable = INFERGAP_WORKER}};
  RunRequest req;
  req.model_path = model;
  req.inputs[input] = random_uniform_tensor(DType::kFloat32, {1, 3, 32, 32}, 1);
  req.platform = "ref:acc=exact,dtype=fp64";
  const RunResult oracle = pool.run(req);
  ASSERT_EQ(oracle.verdict, Verdict::kOk) << oracle.reason;
  const Tensor& truth = oracle.outputs.at(0).tensor;

  const std::vector<std::string> platforms = {"onednn:isa=sse41,threads=1",
                                              "onednn:isa=avx,threads=1",
                                              "onednn:isa=avx2,threads=1",
                                              "onednn:isa=avx512_core,threads=1",
                                              "onednn:isa=avx512_core,threads=3",
                                              "blas:core=Prescott,lib=openblas,threads=1",
                                              "blas:core=Nehalem,lib=openblas,threads=1",
                                              "blas:core=Sandybridge,lib=openblas,threads=1",
                                              "blas:core=Haswell,lib=openblas,threads=1",
                                              "blas:core=SkylakeX,lib=openblas,threads=1",
                                              "blas:arch=generic,lib=blis",
                                              "blas:arch=haswell,lib=blis",
                                              "blas:arch=zen3,lib=blis",
                                              "opencv",
                                              "opencv:disable=AVX512-SKX+AVX2",
                                              "ort:opt=disabled,threads=1",
                                              "ort:opt=all,threads=1"};
  std::set<uint64_t> distinct;
  std::vector<std::string> unavailable;
  int ran = 0;
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  for (const auto& p : platforms) {
    // OpenBLAS's SkylakeX kernel starts fine and dies with SIGILL at its first sgemm where there
    // is no AVX-512; oneDNN refuses avx512_core at start.
    const bool needs_avx512 = p.find("SkylakeX") != std::string::npos;
    if ((needs_avx512 && !avx512) || !pool.start(p).ok()) {
      unavailable.push_back(p);
      continue;
    }
    req.platform = p;
    const RunResult r = pool.run(req);
    ASSERT_EQ(r.verdict, Verdict::kOk) << p << ": " << r.reason;
    EXPECT_GT(r.trace.size(), 20u) << p << " traced too few layers";
    const Tensor& y = r.outputs.at(0).tensor;
    ASSERT_EQ(y.shape(), truth.shape()) << p;
    for (int64_t i = 0; i < y.numel(); ++i) {
      const double e = truth.as_double(i);
      EXPECT_LE(std::abs(y.as_double(i) - e), 1e-7 + 1e-3 * std::abs(e)) << p << " element " << i;
    }
    distinct.insert(r.outputs.at(0).hash);
    ++ran;
  }
  // 17 platforms with AVX-512, 14 without (avx512_core twice and SkylakeX need it); any other
  // platform that does not start is a failure, not a host property.
  std::string listed;
  for (const auto& p : unavailable) listed += " " + p;
  EXPECT_EQ(ran, avx512 ? 17 : 14) << "unavailable:" << listed;
  EXPECT_GE(distinct.size(), 5u);
  std::printf("resnet18: %d real-backend platforms, %zu distinct outputs, %zu unavailable\n", ran,
              distinct.size(), unavailable.size());
}

}  // namespace
}  // namespace ig
